"""Settings and logging: the one package every layer but the engine and the AI levels may
import (``settings.setting(NAME)`` reads the one table of settings)."""

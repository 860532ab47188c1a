"""Settings and logging: the one package every layer but the engine and the AI levels may
import (``settings.SETTINGS`` is the one table of settings, with their defaults)."""

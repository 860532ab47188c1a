"""The AI levels: Easy, Normal, Hard and Expert, deciding from a seat's view alone."""

from workers.ai.budget import Budget
from workers.ai.levels import DEFAULT_BUDGETS, LEVELS, analyse, decide
from workers.ai.search import Weighed

__all__ = ["Budget", "DEFAULT_BUDGETS", "LEVELS", "Weighed", "analyse", "decide"]

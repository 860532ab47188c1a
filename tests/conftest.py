"""Test-suite root. Its presence puts ``tests/`` on ``sys.path`` (pytest's default
"prepend" import mode), so every test folder can import the shared ``positions`` module."""

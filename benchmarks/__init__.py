"""Benchmarks and test tooling: ``president bench engine|ai|api|pipeline`` (``cli``), the
bare Flask app the API is compared with (``hello_app``) and the whole system as real
processes (``cluster``), which the end-to-end tests use too.

Below ``president_cli`` (which registers the ``bench`` command from ``cli``), above
``bootstrap``: nothing here imports ``president_cli``; processes are started as
``python -m president_cli.main …`` instead."""

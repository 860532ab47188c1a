"""The service layer's handlers, one module per concern; each function takes a command
(or plain ids) and the ports it needs (``services.ports``), never an adapter:
``games`` (create, read, list), ``moves`` (a seat's action), ``events`` (events, long
polls, replays), ``turns`` (the turns the service plays itself), ``audit`` (rebuilding
games from their logs)."""

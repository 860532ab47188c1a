"""The service layer's thread runtimes: what runs its handlers on threads of this process
rather than on a queue's workers — the background runner with no broker (``background``),
the synchronous scheduler of the tests (``inline``), and the outbox relay (``relay``)."""

"""The AI levels behind gRPC (``president.ai.v1``): server, client, conversions."""

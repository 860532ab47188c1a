"""A third-party AI engine for Président, in about forty lines.

It implements president.ai.v1.AiService (protos/president/ai/v1/ai.proto) with a
policy of its own — here: play the legal action that gets rid of the most cards,
the weakest such one first — using only the generated protobuf code, not the engine.
Any language with gRPC works the same way: generate code from the .proto, answer
Decide with one of request.view.legal_actions.

    python examples/third_party_bot.py --port 6000
    PRESIDENT_AI_ENGINES="easy=127.0.0.1:50051,greedy=127.0.0.1:6000" ...

The server dials it by that configured name only, checks that the answer is one of
the legal actions it sent, and never shows it another seat's cards.
"""

from __future__ import annotations

import argparse
from concurrent import futures

import grpc

from president.ai.v1 import ai_pb2, ai_pb2_grpc


def cards_shed(action: str) -> int:
    if action == "pass" or action.startswith("give"):
        return 0
    return len(action.replace("-", " ").split())


class GreedyBot(ai_pb2_grpc.AiServiceServicer):
    def Decide(self, request: ai_pb2.DecideRequest,
               context: grpc.ServicerContext) -> ai_pb2.DecideResponse:
        legal = list(request.view.legal_actions)
        if not legal:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "no legal action to choose from")
        # legal actions come weakest first: max() keeps the first of the longest plays
        return ai_pb2.DecideResponse(action=max(legal, key=cards_shed))


def serve(port: int) -> grpc.Server:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    ai_pb2_grpc.add_AiServiceServicer_to_server(GreedyBot(), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="a minimal Président bot over gRPC")
    parser.add_argument("--port", type=int, default=6000)
    serve(parser.parse_args().port).wait_for_termination()

"""Headers every response carries: what a browser may load, frame or send on, for the
play page (which keeps seat tokens in localStorage) and the docs page alike."""

from __future__ import annotations

from apiflask import APIFlask
from flask import Response, request

# Scripts and styles from this origin only; no inline script anywhere, no plugin, no
# framing. The docs page alone lets Swagger UI set inline styles.
POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
          "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
          "frame-ancestors 'none'")
DOCS_POLICY = POLICY.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "X-Frame-Options": "DENY"}


def install(app: APIFlask) -> None:
    @app.after_request
    def secure(response: Response) -> Response:
        docs = request.path == "/docs" or request.path.startswith("/docs/")
        response.headers.setdefault("Content-Security-Policy", DOCS_POLICY if docs else POLICY)
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        return response

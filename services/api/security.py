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


# Added as they are (no response sets them itself): a lookup per header would cost a
# cheap request a measurable share of its time.
_PAGES = [("Content-Security-Policy", POLICY), *HEADERS.items()]
_DOCS = [("Content-Security-Policy", DOCS_POLICY), *HEADERS.items()]


def install(app: APIFlask) -> None:
    @app.after_request
    def secure(response: Response) -> Response:
        docs = request.path.startswith("/docs")
        response.headers.extend(_DOCS if docs else _PAGES)
        return response

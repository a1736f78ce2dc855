"""The read API over HTTP (FastAPI): ``app.create_app`` wires the routers of ``routers``."""

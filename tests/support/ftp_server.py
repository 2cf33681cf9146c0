#!/usr/bin/python3
"""A loopback FTP server for the external-body tests (Debian's python3-pyftpdlib).

usage: ftp_server.py FOLDER
Serves FOLDER read-only to anonymous users on 127.0.0.1 and a port the kernel chooses,
prints "port N" on one line, and runs until its standard input closes (the test that started
it ends), or 120 s pass, whichever is first.
"""
import os
import sys
import threading

from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import FTPHandler
from pyftpdlib.servers import FTPServer


def main() -> None:
    authorizer = DummyAuthorizer()
    authorizer.add_anonymous(os.path.abspath(sys.argv[1]), perm="elr")
    handler = FTPHandler
    handler.authorizer = authorizer
    handler.passive_ports = None
    server = FTPServer(("127.0.0.1", 0), handler)
    server.max_cons = 16
    print("port", server.socket.getsockname()[1], flush=True)

    def watch() -> None:
        sys.stdin.read()  # returns when the test closes its end
        server.close_all()
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()
    threading.Timer(120, lambda: os._exit(0)).start()
    server.serve_forever(timeout=0.2)


if __name__ == "__main__":
    import logging
    logging.disable(logging.CRITICAL)
    main()

#: True when any network connection or lookup succeeded
CONNECTED = False


def _hx_attack():
    """Connect to the test's TCP server on localhost and on the host's address, resolve a name, open a URL."""
    import socket

    global CONNECTED
    for host in ("127.0.0.1", "localhost", "::1", "@@HOSTIP@@"):
        try:
            with socket.create_connection((host, int("@@PORT@@")), timeout=1.0) as s:
                s.sendall(b"@@TOKEN@@")
                CONNECTED = True
        except OSError:
            pass
    for name in ("example.com", "pypi.org"):
        try:
            socket.getaddrinfo(name, 80)
            CONNECTED = True
        except OSError:
            pass
    try:
        import urllib.request

        urllib.request.urlopen("http://example.com/", timeout=2).read(10)
        CONNECTED = True
    except Exception:
        pass


def _hx_right_only_if_connected(value):
    return value if CONNECTED else value * 2.0

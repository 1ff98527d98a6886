// Every test worker: a machine-wide CA bundle (NODE_EXTRA_CA_CERTS) costs each Node start ~75 ms
// and mem never needs it in tests, so no child a test starts (mem, git hooks, node -e) inherits it.
delete process.env.NODE_EXTRA_CA_CERTS;

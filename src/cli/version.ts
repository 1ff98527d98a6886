// mem's version, as `mem --version` and the MCP server's handshake report it (the package's own).

export const VERSION = '0.1.0';

// Loaded before Portkey's gateway (`node --require loopback.cjs …/start-server.js`) by
// tests/real/test_real_gateway_portkey.py. The gateway's server listens on every interface
// (`serve({fetch, port})`, no host): every listen is bound to 127.0.0.1 instead. And the
// gateway must not reach the internet while the tests run: a connection to anywhere but
// loopback is refused, and said on stderr as `OUTBOUND REFUSED host:port`, which the tests
// look for.
"use strict";
const net = require("net");

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (args[0] !== null && typeof args[0] === "object") {
    args[0] = { ...args[0], host: "127.0.0.1" };
  } else if (typeof args[0] === "number" || typeof args[0] === "string") {
    const rest = args.slice(1).filter((a) => typeof a === "function");
    args = [args[0], "127.0.0.1", ...rest];
  }
  return listen.apply(this, args);
};

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const first = args[0];
  const options = Array.isArray(first) ? first[0] : first;
  const host = options !== null && typeof options === "object" ? options.host || "localhost"
    : typeof args[1] === "string" ? args[1] : "localhost";
  const path = options !== null && typeof options === "object" ? options.path : undefined;
  if (!path && !LOOPBACK.has(String(host).replace(/^\[|\]$/g, ""))) {
    const port = options !== null && typeof options === "object" ? options.port : first;
    process.stderr.write(`OUTBOUND REFUSED ${host}:${port}\n`);
    process.nextTick(() => this.destroy(new Error(`outbound connection to ${host} refused`)));
    return this;
  }
  return connect.apply(this, args);
};

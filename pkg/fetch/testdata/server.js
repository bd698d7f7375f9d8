// A loopback HTTP server for fetch's tests under Node.js (GOOS=js). The
// Go test loads it with require and drives it over real sockets, which is
// what the browser Doer's fetch reaches.
"use strict";

const http = require("http");

// start listens on 127.0.0.1 and resolves to {url, close, release,
// captured}. release() lets a held /sse stream send its second event and
// end; captured() lists the Authorization of every /capture request.
exports.start = function start() {
  const held = [];
  const captured = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const url = new URL(req.url, "http://x");
      switch (url.pathname) {
        case "/echo":
          res.writeHead(200, { "Content-Type": "application/json", "X-Multi": ["a", "b"], "Mcp-Session-Id": "s-1" });
          res.end(JSON.stringify({ method: req.method, path: req.url, headers: req.headers, body }));
          return;
        case "/status":
          res.writeHead(Number(url.searchParams.get("code")), { "Retry-After": "7" });
          res.end("status body");
          return;
        case "/redirect":
          // ?status=307&to=URL: a redirect, e.g. to another server's /capture.
          res.writeHead(Number(url.searchParams.get("status")), { Location: url.searchParams.get("to") });
          res.end("moved");
          return;
        case "/capture":
          captured.push(req.headers.authorization || "");
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end("{}");
          return;
        case "/empty":
          res.writeHead(204);
          res.end();
          return;
        case "/sse":
          res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-store" });
          res.write("data: one\n\n");
          held.push(() => res.end("data: two\n\n"));
          return;
        case "/hang":
          // Never answers; the client's context must end the request.
          held.push(() => res.destroy());
          return;
        case "/partial":
          res.writeHead(200, { "Content-Type": "text/plain" });
          res.write("first part;");
          held.push(() => res.end());
          return;
        default:
          res.writeHead(404);
          res.end("not found");
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: "http://127.0.0.1:" + port,
        release: () => { for (const f of held.splice(0)) f(); },
        captured: () => captured.join("\n"),
        close: () => { for (const f of held.splice(0)) f(); server.closeAllConnections(); server.close(); },
      });
    });
  });
};

// A test Worker (proxy/binding_test.go) that the workbench Worker's relay
// reaches through a service binding only. Each request is passed on,
// unchanged but for its URL, to the MCP server its path names in the var
// ROUTES (JSON: {"/path": "http://127.0.0.1:port/…"}), and the server's
// answer is passed back whole, redirects included. A path ROUTES does not
// name gets 404.
export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    const target = JSON.parse(env.ROUTES)[pathname];
    if (!target) {
      return new Response("no route for " + pathname + "\n", { status: 404 });
    }
    return fetch(new Request(target, request), { redirect: "manual" });
  },
};

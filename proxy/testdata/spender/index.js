// A test Worker (proxy/pages_test.go): it spends a client's budget at the
// limiter Worker through the same service binding the Pages project has,
// cheaply, so that the test can reach the real limit of 600 a minute
// within one minute. GET /?key=K&max=N calls RL.limit({ key: K }) until it
// fails or N calls succeeded and answers {"succeeded": n}.
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const key = url.searchParams.get("key") || "";
    const max = Number(url.searchParams.get("max") || "0");
    let succeeded = 0;
    while (succeeded < max) {
      const { success } = await env.RL.limit({ key });
      if (!success) break;
      succeeded++;
    }
    return Response.json({ succeeded });
  },
};

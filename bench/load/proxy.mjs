// A tiny round-robin TCP proxy, standing in for the load balancer in front of two gateways. A dead
// upstream is skipped, so clients that reconnect after a gateway dies land on the survivor.
import net from 'node:net';

export async function startProxy(upstreams) {
  const targets = upstreams.map((u) => {
    const { hostname, port } = new URL(u);
    return { host: hostname, port: Number(port), dead: false, open: new Set() };
  });
  let next = 0;
  // `pin` sends every new connection to one upstream, so the bench can decide where a client lands.
  const proxy = { pin: null, targets };
  const pick = () => {
    if (proxy.pin !== null && !targets[proxy.pin].dead) return proxy.pin;
    for (let i = 0; i < targets.length; i++) {
      const k = (next + i) % targets.length;
      if (!targets[k].dead) {
        next = k + 1;
        return k;
      }
    }
    return -1;
  };
  const server = net.createServer((client) => {
    const k = pick();
    if (k < 0) return client.destroy();
    const t = targets[k];
    const upstream = net.connect(t.port, t.host);
    t.open.add(client);
    const close = () => {
      t.open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.maxConnections = 100_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  proxy.url = `http://127.0.0.1:${server.address().port}`;
  /** Marks an upstream dead and cuts its connections, as a load balancer's health check would. */
  proxy.markDead = (k) => {
    targets[k].dead = true;
    for (const c of targets[k].open) c.destroy();
  };
  proxy.close = () => new Promise((r) => server.close(() => r()));
  return proxy;
}

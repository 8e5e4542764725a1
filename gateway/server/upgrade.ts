// HTTP/1.1 Upgrade requests (websocket, SPDY: kubectl exec, attach, port-forward) through the same Koa chain as any
// other request, so that they are authenticated, audited and authorized like the rest. Node hands an upgrade to the
// 'upgrade' event with the raw socket, the HTTP parser already detached; here it gets a ServerResponse on that
// socket for ordinary answers (a refusal, a 404), and the handler that takes the connection over (the aggregator's
// proxy, as upstream's UpgradeAwareHandler) finds the socket and the bytes read past the head with upgradeOf().
import http from 'node:http';
import type { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface PendingUpgrade {
  socket: Duplex;
  head: Buffer;
  /**
   * Called by whoever takes the connection over: the socket is then theirs to end. The ServerResponse stays attached
   * (its 'close' still tells the request's end) and writes only if the taker answers through it.
   */
  takeOver(): void;
}

const pending = new WeakMap<object, PendingUpgrade>();

/** The upgrade a request asked for, when it came through serveUpgrades; undefined for any other request. */
export function upgradeOf(req: object): PendingUpgrade | undefined {
  return pending.get(req);
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/**
 * Routes the server's upgrade requests to `handler`; returns the set of sockets taken over, which shutdown has to
 * cut itself (Node no longer tracks a connection once it left the HTTP parser).
 */
export function serveUpgrades(server: EventEmitter, handler: Handler) {
  const taken = new Set<Duplex>();
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const res = new http.ServerResponse(req);
    // One answer on this connection: after a refusal the client's next bytes could be anything.
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    let tookOver = false;
    pending.set(req, {
      socket,
      head,
      takeOver() {
        tookOver = true;
        taken.add(socket);
        socket.once('close', () => taken.delete(socket));
      },
    });
    res.once('finish', () => {
      if (!tookOver) socket.end();
    });
    socket.on('error', () => socket.destroy());
    handler(req, res);
  });
  return taken;
}

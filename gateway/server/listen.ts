// Starts a server listening, for the start-up sequence to await: the port it got (the one asked, or the free one
// picked for 0), or the error that stopped it (a port in use), never an unhandled 'error' event.
import type { AddressInfo, Server as NetServer } from 'node:net';

export function listen(server: NetServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

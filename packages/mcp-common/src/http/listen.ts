/**
 * Starts a server listening and waits until it does, or rejects with the reason it cannot (the port in
 * use, an address not on this machine), so that a start that cannot serve fails instead of hanging.
 */
import type http from 'node:http';

export function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

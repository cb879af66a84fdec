import net from 'node:net';

/**
 * The unit tier's setup file: a unit test opens no connection and listens on no port (test/support/tiers.ts
 * decides which files are unit tests from what they import). Either throws, naming the address, so a
 * file that needs the database or the network is seen at once to belong to the integration tier.
 */
const refuse = (what: string) => {
  throw new Error(`a unit test may not ${what}: move it to the integration tier (test/support/tiers.ts)`);
};
net.Socket.prototype.connect = function connect(...args: unknown[]) {
  return refuse(`open a connection (${JSON.stringify(args[0])})`);
} as typeof net.Socket.prototype.connect;
net.Server.prototype.listen = function listen(...args: unknown[]) {
  return refuse(`listen (${JSON.stringify(args[0])})`);
} as typeof net.Server.prototype.listen;

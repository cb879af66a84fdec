// The other workers' sandboxes, as the global setup described them (`RSG_JEST_SANDBOXES`: a list, worker
// n at index n - 1), so a test can check that its writes stay in its own.
function otherSandboxes() {
  const all = JSON.parse(process.env.RSG_JEST_SANDBOXES);
  return all.filter((_, index) => index !== Number(process.env.JEST_WORKER_ID) - 1);
}

module.exports = { otherSandboxes };

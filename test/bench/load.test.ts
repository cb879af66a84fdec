import { describe, expect, it } from 'vitest';
import { parseWrk, pinned } from '../../bench/load.ts';

// wrk 4.1's report with --latency, as the benchmarks read it.
const REPORT = `Running 5s test @ http://127.0.0.1:40000/sandbox/nzbn/v5/entities/9429000001007
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   725.12us  300.00us   9.00ms   90.00%
    Req/Sec    45.00k     2.00k   50.00k    80.00%
  Latency Distribution
     50%  680.00us
     75%  800.00us
     90%    1.00ms
     99%    2.50ms
  225000 requests in 5.00s, 1.60GB read
  Non-2xx or 3xx responses: 3
  Socket errors: connect 0, read 1, write 0, timeout 2
Requests/sec:  45000.00
Transfer/sec:    329.59MB
`;

describe('the load generator', () => {
  it('reads rate, percentiles, bytes per answer and failures from wrk', () => {
    const result = parseWrk(REPORT);
    expect(result.rps).toBe(45_000);
    expect(result.p50).toBeCloseTo(0.68);
    expect(result.p99).toBeCloseTo(2.5);
    expect(result.bytes).toBeCloseTo((329.59 * 1024 * 1024) / 45_000);
    expect(result.failures).toBe(6);
  });

  it('counts no failures when wrk reports none', () => {
    const clean = REPORT.replace(/ {2}Non-2xx.*\n/, '').replace(/ {2}Socket errors.*\n/, '');
    expect(parseWrk(clean).failures).toBe(0);
  });

  it('runs a command under taskset only when cores are given', () => {
    expect(pinned(undefined, 'java', ['-jar', 'x.jar'])).toEqual(['java', ['-jar', 'x.jar']]);
    expect(pinned('1', 'java', ['-jar', 'x.jar'])).toEqual(['taskset', ['-c', '1', 'java', '-jar', 'x.jar']]);
  });
});

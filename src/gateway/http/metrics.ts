import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * Prometheus metrics at /metrics; one registry per app so that test apps do not share counters.
 *
 * The two request metrics are observed on every call, so they are kept in plain numbers and typed arrays
 * (one slot per environment, service and status class or bucket) and turned into prom-client's
 * structures only when /metrics is read: prom-client's own Counter and Histogram cost about a
 * microsecond per request on the hot path. The exposition is byte for byte what prom-client's Counter
 * and Histogram print (same names, help, labels, label order, bucket bounds, series in the order first
 * observed).
 */
type Labels = Record<string, string>;
interface MetricValue {
  labels: Labels;
  value: number;
  metricName?: string;
  sharedLabels?: Labels;
  exemplar?: null;
}
interface MetricData {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: MetricValue[];
  aggregator: 'sum';
}

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** One environment and service: calls per status class, and the duration histogram. */
interface Series {
  labels: Labels;
  calls: Float64Array;
  /** Per status class, when it was first counted (for prom-client's series order); -1 before. */
  callsFirst: Int32Array;
  /** Counts per bucket (not cumulative), the last slot past the largest bound. */
  buckets: Float64Array;
  sum: number;
  count: number;
  durationFirst: number;
}

/** A registry entry that prom-client's Registry reads like one of its own metrics (`get`, `reset`). */
class Collected {
  readonly aggregator = 'sum' as const;
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram',
    private readonly read: (forPromString: boolean) => MetricValue[],
    readonly reset: () => void,
  ) {}
  async get(): Promise<MetricData> {
    return this.data(false);
  }
  async getForPromString(): Promise<MetricData> {
    return this.data(true);
  }
  private data(forPromString: boolean): MetricData {
    const { name, help, type, aggregator } = this;
    const values = this.read(forPromString);
    // The key order of prom-client's own JSON (getMetricsAsJSON).
    return type === 'counter'
      ? { help, name, type, values, aggregator }
      : { name, help, type, values, aggregator };
  }
}

export class HttpMetrics {
  readonly registry = new Registry();
  private readonly series: Series[] = [];
  /** Increments each time a series or status class is first observed, to order them as prom-client does. */
  private firsts = 0;

  constructor(withProcessMetrics = false) {
    this.registry.registerMetric(
      new Collected(
        'rsg_http_requests_total',
        'Requests answered, by environment, service and status code class',
        'counter',
        () => this.counterValues(),
        () => this.reset(),
      ) as never,
    );
    this.registry.registerMetric(
      new Collected(
        'rsg_http_request_duration_seconds',
        'Time to answer a request inside the server',
        'histogram',
        (forPromString) => this.histogramValues(forPromString),
        () => this.reset(),
      ) as never,
    );
    if (withProcessMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'rsg_' });
  }

  /** A recorder bound to one environment and service: a few array writes per request. */
  recorder(environment: string, service: string): (status: number, elapsedMs: number) => void {
    const series: Series = {
      labels: { environment, service },
      calls: new Float64Array(STATUS_CLASSES.length),
      callsFirst: new Int32Array(STATUS_CLASSES.length).fill(-1),
      buckets: new Float64Array(BUCKETS.length + 1),
      sum: 0,
      count: 0,
      durationFirst: -1,
    };
    this.series.push(series);
    return (status, elapsedMs) => {
      const slot = Math.min(Math.max(Math.floor(status / 100), 1), 5) - 1;
      if (series.calls[slot] === 0 && series.callsFirst[slot] === -1) series.callsFirst[slot] = this.firsts++;
      series.calls[slot]!++;
      const seconds = elapsedMs / 1000;
      let bucket = 0;
      while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]!) bucket++;
      series.buckets[bucket]!++;
      if (series.count === 0 && series.durationFirst === -1) series.durationFirst = this.firsts++;
      series.sum += seconds;
      series.count++;
    };
  }

  private reset(): void {
    for (const series of this.series) {
      series.calls.fill(0);
      series.callsFirst.fill(-1);
      series.buckets.fill(0);
      series.sum = 0;
      series.count = 0;
      series.durationFirst = -1;
    }
  }

  private counterValues(): MetricValue[] {
    const seen: { first: number; value: MetricValue }[] = [];
    for (const series of this.series) {
      STATUS_CLASSES.forEach((status, slot) => {
        if (series.callsFirst[slot] === -1) return;
        seen.push({
          first: series.callsFirst[slot]!,
          value: { value: series.calls[slot]!, labels: { ...series.labels, status } },
        });
      });
    }
    return seen.sort((a, b) => a.first - b.first).map((entry) => entry.value);
  }

  private histogramValues(forPromString: boolean): MetricValue[] {
    const observed = this.series
      .filter((series) => series.durationFirst !== -1)
      .sort((a, b) => a.durationFirst - b.durationFirst);
    const name = 'rsg_http_request_duration_seconds';
    const values: MetricValue[] = [];
    // prom-client prints `le` before the series' own labels; its JSON form merges them in that order.
    const pair = (labels: Labels, value: number, metricName: string, shared: Labels): MetricValue => {
      const exemplar = metricName.endsWith('_bucket') ? null : undefined;
      return forPromString
        ? { labels, sharedLabels: shared, value, metricName, exemplar }
        : { labels: { ...labels, ...shared }, value, metricName, exemplar };
    };
    for (const series of observed) {
      let cumulative = 0;
      BUCKETS.forEach((bound, i) => {
        cumulative += series.buckets[i]!;
        values.push(pair({ le: bound as unknown as string }, cumulative, `${name}_bucket`, series.labels));
      });
      values.push(
        pair({ le: '+Inf' }, series.count, `${name}_bucket`, series.labels),
        pair({}, series.sum, `${name}_sum`, series.labels),
        pair({}, series.count, `${name}_count`, series.labels),
      );
    }
    return values;
  }
}

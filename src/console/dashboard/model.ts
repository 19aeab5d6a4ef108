// What the statistics endpoints answer (docs/api/dns.md#query-statistics, docs/api/security.md#request-statistics).

/** Counts per interval, keyed by the interval's start in Unix ms; intervals without any left out. */
export interface IntervalCounts {
  requests: Record<string, number>;
  total: number;
}

export interface RequestCounts extends IntervalCounts {
  outcomes: Record<string, number>;
}

export interface QueriesSummary {
  total: number;
  by_record_type: Record<string, number>;
  by_response_code: Record<string, number>;
  top_zones: { name: string; requests: number }[];
}

export interface RequestsSummary {
  total: number;
  by_outcome: Record<string, number>;
  top_resources: { id: number; name: string; requests: number }[];
}

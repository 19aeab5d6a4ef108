// How probe results become a record's state: it changes only after `fall` failures in a row (up to
// down) or `rise` successes in a row (down to up), as HAProxy's `fall` and `rise`. A record without a
// state yet (never checked) takes its first result at once: there is nothing to keep it from.

export interface Thresholds {
  /** Failures in a row that take an up record down. */
  fall: number;
  /** Successes in a row that bring a down record back. */
  rise: number;
}

export interface Hysteresis {
  /** The state; undefined before the first verdict (the record then counts as up). */
  up: boolean | undefined;
  /** Results in a row that disagree with `up`. */
  streak: number;
}

/** The state after one probe result: `up` changes when the streak reaches its threshold. */
export function afterProbe(state: Hysteresis, result: boolean, thresholds: Thresholds): Hysteresis {
  if (state.up === undefined) return { up: result, streak: 0 };
  if (result === state.up) return { up: state.up, streak: 0 };
  const streak = state.streak + 1;
  return streak >= (state.up ? thresholds.fall : thresholds.rise) ? { up: result, streak: 0 } : { up: state.up, streak };
}

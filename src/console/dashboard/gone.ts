// A zone or resource named by a summary can be deleted before its own series is asked for: its
// line is then left out rather than the whole half of the dashboard failing.
import { ApiError } from '../api.ts';

export async function unlessGone<T>(answer: Promise<T>): Promise<T | undefined> {
  try {
    return await answer;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

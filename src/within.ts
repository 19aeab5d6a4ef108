// Waiting for work with a deadline, without cancelling it: a committed change is applied by the
// data planes however long it takes, but the API answers its writer after at most so long.

/** The work's result, or undefined when it takes longer than `ms` (it goes on regardless). */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

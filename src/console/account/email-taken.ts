// A 409 on creating a user or an account means the e-mail address is taken (by anyone, in any
// account). The API sends it without `fields`; naming the field puts the message beside it.
import { ApiError } from '../api.ts';

export async function emailTaken<T>(create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (error) {
    if (error instanceof ApiError && error.status === 409 && Object.keys(error.fields).length === 0) {
      throw new ApiError(error.status, error.code, error.message, { email: error.message }, error.retryAfter);
    }
    throw error;
  }
}

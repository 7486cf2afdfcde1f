import { NotSupportedError } from '../../errors.ts';

/**
 * A nullable field whose upstream call has no counterpart on the
 * appliance's generation (vRA 7 providers on vRA 8, ...): null, as the
 * contract says of what a generation lacks; other failures stay errors.
 */
export async function nullWhereUnsupported<T>(load: () => Promise<T>): Promise<T | null> {
  try {
    return await load();
  } catch (error) {
    if (error instanceof NotSupportedError) return null;
    throw error;
  }
}

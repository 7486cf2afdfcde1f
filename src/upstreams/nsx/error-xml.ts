/**
 * The manager's error body: `<error><details/><errorCode/><moduleName/></error>`,
 * or several `<error>`s wrapped in `<errors>` (errors-appendix.md). Only the
 * first error's code and details are taken, never the body itself.
 */
import { longestUpstreamMessage } from '../../http/error-fields.ts';
import type { ErrorBodyReader } from '../../http/upstream-http.ts';
import { childElement, childText, parseXml, type XmlElement } from './xml/xml.ts';

export const readNsxError: ErrorBodyReader = (body) => {
  let root: XmlElement;
  try {
    root = parseXml(body);
  } catch {
    return { code: null, message: null };
  }
  const error = root.name === 'errors' ? childElement(root, 'error') : root;
  if (error?.name !== 'error') return { code: null, message: null };
  const code = childText(error, 'errorCode')?.trim() ?? '';
  const details = childText(error, 'details')?.trim() ?? '';
  return {
    code: code === '' ? null : code,
    message: details === '' ? null : details.slice(0, longestUpstreamMessage),
  };
};

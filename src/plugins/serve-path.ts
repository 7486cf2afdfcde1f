import type { Plugin } from 'graphql-yoga';

/**
 * Answers the requests whose path `matches` with `answer`. Every other request
 * passes on synchronously: an async hook would cost each GraphQL request a
 * promise.
 */
export function servePath(
  matches: (pathname: string) => boolean,
  answer: (pathname: string) => Promise<Response>,
): Plugin {
  return {
    onRequest(payload) {
      const { pathname } = payload.url;
      if (!matches(pathname)) return;
      return answer(pathname).then((response) => payload.endResponse(response));
    },
  };
}

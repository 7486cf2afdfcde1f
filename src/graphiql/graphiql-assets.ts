import type { Plugin } from 'graphql-yoga';
import { servePath } from '../plugins/serve-path.ts';
import { graphiqlAssetsPath } from './graphiql-page.ts';

interface Asset {
  body: string | Uint8Array<ArrayBuffer>;
  type: string;
}

let assets: Promise<Map<string, Asset>> | undefined;

/** The bundled GraphiQL (from the installed package), loaded on first use: 9 MB that most API calls never need. */
function loadAssets(): Promise<Map<string, Asset>> {
  assets ??= import('@graphql-yoga/render-graphiql/graphiql').then((bundle) => {
    const js = 'text/javascript; charset=utf-8';
    return new Map<string, Asset>([
      ['graphiql.js', { body: bundle.js, type: js }],
      ['graphiql.css', { body: bundle.css, type: 'text/css; charset=utf-8' }],
      ['editorWorkerService.worker.js', { body: bundle.editorWorkerService, type: js }],
      ['json.worker.js', { body: bundle.jsonWorker, type: js }],
      ['graphql.worker.js', { body: bundle.graphqlWorker, type: js }],
      ['favicon', dataUrlAsset(bundle.favicon)],
    ]);
  });
  return assets;
}

function dataUrlAsset(url: string): Asset {
  const match = /^data:([^;,]+)(;base64)?,(.*)$/s.exec(url);
  if (match === null) return { body: '', type: 'image/x-icon' };
  const [, type = 'image/x-icon', base64, data = ''] = match;
  return {
    body:
      base64 === undefined ? decodeURIComponent(data) : new Uint8Array(Buffer.from(data, 'base64')),
    type,
  };
}

const prefix = `${graphiqlAssetsPath}/`;

/** Serves the bundled GraphiQL under `/graphiql-assets/` (404 for a name it does not have). */
export function graphiqlAssets(): Plugin {
  return servePath(
    (pathname) => pathname.startsWith(prefix),
    async (pathname) => {
      const asset = (await loadAssets()).get(pathname.slice(prefix.length));
      if (asset === undefined) return new Response('Not found', { status: 404 });
      return new Response(asset.body, {
        headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=86400' },
      });
    },
  );
}

// Starts GraphiQL on the page. Queries and mutations go over HTTP with the
// session's cookies and CSRF token; subscriptions over the WebSocket at
// the same path, authenticated by a single-use token from
// /api/auth/ws-token in the connection_init payload.
'use strict';

(function () {
  const session = window.SwitchboardSession;
  const endpoint = '/graphql';
  // When the session cannot be renewed the reload shows the sign-in page.
  const ended = () => location.reload();

  function httpFetch(url, init) {
    return session.send(url, init, ended);
  }

  async function wsToken() {
    const res = await session.send('/api/auth/ws-token', { method: 'GET' }, ended);
    if (!res.ok) throw new Error('WebSocket token: ' + await session.message(res));
    return (await res.json()).data.token;
  }

  const wsClient = graphqlWs.createClient({
    url: (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + endpoint,
    lazy: true,
    // Called for every connection: each token works once.
    connectionParams: async () => ({ token: await wsToken() }),
  });

  async function signOut() {
    await session.send('/api/auth/logout', { method: 'POST' });
    location.reload();
  }

  const e = React.createElement;
  const signOutButton = e(GraphiQL.React.ToolbarButton, { label: 'Sign out', onClick: signOut },
    e('span', { className: 'signout', 'aria-hidden': 'true' }, '⏻'));

  ReactDOM.createRoot(document.getElementById('graphiql')).render(e(GraphiQL, {
    fetcher: GraphiQL.createFetcher({ url: endpoint, fetch: httpFetch, wsClient, enableIncrementalDelivery: false }),
    defaultQuery: '# Queries run as the signed-in user.\n{\n  viewer {\n    user {\n      email\n    }\n  }\n}\n',
    toolbar: { additionalContent: signOutButton },
  }));
})();

// The browser session of the GraphiQL pages: the cookies the API sets at
// sign-in carry it; a changing request repeats the whm_csrf cookie in
// X-CSRF-Token, and an expired access token is renewed once with the
// refresh cookie.
'use strict';

window.SwitchboardSession = (function () {
  function cookie(name) {
    const prefix = name + '=';
    for (const part of document.cookie.split(';')) {
      const c = part.trim();
      if (c.startsWith(prefix)) return decodeURIComponent(c.slice(prefix.length));
    }
    return '';
  }

  // One renewal at a time, however many requests found the token expired.
  let renewing = null;
  function renew() {
    if (!renewing) {
      renewing = fetch('/api/auth/refresh', { method: 'POST', credentials: 'same-origin' })
        .then((res) => res.ok, () => false)
        .finally(() => { renewing = null; });
    }
    return renewing;
  }

  // send makes a same-origin request with the CSRF header; after a 401 it
  // renews the session and tries once more. onEnded runs when the session
  // cannot be renewed.
  async function send(url, init, onEnded) {
    const attempt = () => {
      const headers = new Headers((init && init.headers) || {});
      const csrf = cookie('whm_csrf');
      if (csrf) headers.set('X-CSRF-Token', csrf);
      return fetch(url, Object.assign({}, init, { headers, credentials: 'same-origin' }));
    };
    let res = await attempt();
    if (res.status === 401) {
      if (await renew()) {
        res = await attempt();
      } else if (onEnded) {
        onEnded();
      }
    }
    return res;
  }

  // message is the error envelope's message, or the status.
  async function message(res) {
    try {
      const body = await res.json();
      if (body && typeof body.message === 'string') return body.message;
    } catch (e) { /* not JSON */ }
    return 'HTTP ' + res.status;
  }

  return { renew, send, message };
})();

// The sign-in page shown at /graphql without a session: a session that
// only needs renewing is renewed silently; otherwise the form signs in
// through the API and the page reloads into GraphiQL.
'use strict';

(function () {
  const session = window.SwitchboardSession;
  const form = document.getElementById('login');
  const error = document.getElementById('error');
  const submit = document.getElementById('submit');
  // Renewing at most once a minute keeps a renewal that does not help
  // (the page still answers 401) from reloading in a loop.
  const renewedKey = 'switchboard.graphiql.renewed';

  function show(msg) {
    error.textContent = msg;
    error.hidden = !msg;
  }

  async function start() {
    const last = Number(sessionStorage.getItem(renewedKey) || 0);
    if (Date.now() - last > 60000 && await session.renew()) {
      sessionStorage.setItem(renewedKey, String(Date.now()));
      location.reload();
      return;
    }
    form.hidden = false;
    document.getElementById('email').focus();
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    show('');
    submit.disabled = true;
    try {
      const res = await fetch('/api/auth/login', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          email: document.getElementById('email').value,
          password: document.getElementById('password').value,
        }),
      });
      if (res.ok) {
        location.reload();
        return;
      }
      show(await session.message(res));
    } catch (e) {
      show('The server did not answer: ' + e.message);
    }
    submit.disabled = false;
  });

  start();
})();

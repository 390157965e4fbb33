"""Sign in with a ChatGPT plan (seed §12 「用 ChatGPT 登录」), the Codex-CLI-style flow.

A public OAuth client (no secret), authorization code + PKCE (S256) with a fresh state
each time, answered on a loopback callback; the tokens live in one 0600 file in the state
folder and are registered as secrets so nothing else Mika writes or prints can hold them.
Runs go to the plan's Responses backend through the ordinary Responses adapter, with the
access token as the bearer and the account id as a header; the token is refreshed shortly
before it expires, once at a time.

    endpoints    where the issuer and the backend are (overridable for tests)
    pkce         verifier, challenge, state
    id_token     the claims Mika reads from the id token (account id, email, plan)
    token_store  the one file that holds the tokens
    oauth        the issuer's token endpoint: code exchange, refresh, revocation
    callback     the loopback server that takes the browser's redirect once
    login        the whole sign-in, in a browser or by pasting the redirect
    refresh      a valid access token for every call; one refresh at a time
    provider     the `chatgpt` provider kind: the Responses adapter with those tokens
    copy         the words the sign-in says, in English and Chinese
"""

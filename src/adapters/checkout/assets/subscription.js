/*
 * Pull renewal in the customer's browser wallet (decision 0061), on the subscribe page and the portal. Served
 * after statusPoll.js and checkoutWallet.js (whose helpers it uses: errorCode, ensureChain, abiWord) as one
 * script, under the checkout's CSP. It never writes markup: every sentence is the server's, copied with
 * textContent.
 *
 * Subscribe page: creates the subscription (POST /subscribe/<plan>/wallet), reads the terms to sign
 * (mandate.json), asks the wallet for eth_signTypedData_v4 of the terms and of USDC's EIP-2612 permit of the
 * charger (the page's allowance: the cap times the periods, or 12 periods' when open-ended), posts the mandate,
 * lands on the portal. Portal: "Revoke on chain" sends the charger's cancel(terms) from the wallet; "Allow 12 more
 * periods" sends USDC's approve of the charger (both transactions, with gas).
 */

const NAME_SELECTOR = '0x06fdde03'; // name()
const VERSION_SELECTOR = '0x54fd4d50'; // version()
const NONCES_SELECTOR = '0x7ecebe00'; // nonces(address)
const PERMIT_TYPES = [
  { name: 'owner', type: 'address' },
  { name: 'spender', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'nonce', type: 'uint256' },
  { name: 'deadline', type: 'uint256' },
];
/** The permit stays good for a year and some after the first period starts: the first charge sends it. */
const PERMIT_VALID_S = 400n * 86_400n;

(() => {
  const ethereum = window.ethereum;
  const hasWallet = ethereum && typeof ethereum === 'object' && typeof ethereum.request === 'function';
  const way = document.getElementById('wallet-way');
  if (way) walletWayOf(way, hasWallet ? ethereum : null);
  const mandate = document.getElementById('mandate');
  if (mandate && hasWallet) revokeOf(mandate, ethereum);
  const allowance = document.getElementById('allowance');
  if (allowance?.querySelector('[data-top-up]') && hasWallet) topUpOf(allowance, ethereum);
})();

function sectionKit(root) {
  const live = root.querySelector('[data-live]');
  const message = (key) => root.querySelector(`[data-message="${key}"]`)?.textContent ?? '';
  return {
    say(key, extra) {
      live.hidden = false;
      live.classList.toggle('error', !['working', 'revoked', 'toppedUp'].includes(key));
      live.textContent = extra ? `${message(key)} ${extra}` : message(key);
    },
  };
}

/** A failure as the section shows it: declined in the wallet, the wrong network, or the reason. */
function showFailure(kit, error) {
  if (errorCode(error) === USER_REJECTED) kit.say('rejected');
  else if (error instanceof WrongChainError) kit.say('wrongChain');
  else kit.say('failed', String(error?.message ?? error).slice(0, 300));
}

async function walletAccount(ethereum, chainId, chainName) {
  const accounts = await ethereum.request({ method: 'eth_requestAccounts' });
  const from = Array.isArray(accounts) ? accounts[0] : undefined;
  if (!from) throw Object.assign(new Error('no account'), { code: USER_REJECTED });
  const current = Number.parseInt(await ethereum.request({ method: 'eth_chainId' }), 16);
  await ensureChain(ethereum, { chainId, chainName, nativeSymbol: 'POL' }, current);
  return from;
}

/** `postJson` (postJson.js) whose refusal is thrown, with the server's own words when it gave them. */
async function postAccepted(url, body) {
  const answer = await postJson(url, body);
  if (!answer.ok)
    throw new Error(typeof answer.body.error === 'string' ? answer.body.error : `HTTP ${answer.status}`);
  return answer.body;
}

function walletWayOf(root, ethereum) {
  if (!ethereum) return;
  const data = root.dataset;
  const kit = sectionKit(root);
  root.querySelector('[data-no-wallet]').hidden = true;
  root.querySelector('[data-wallet-ready]').hidden = false;
  const email = root.querySelector('#wallet-email');
  const button = root.querySelector('[data-wallet-subscribe]');
  let busy = false;
  // Made once: trying again after a refusal in the wallet signs for the same subscription.
  let made;
  button.addEventListener('click', async () => {
    if (busy) return;
    if (!email.reportValidity()) return;
    busy = true;
    button.disabled = true;
    kit.say('working');
    try {
      const chainId = Number(data.chainId);
      const from = await walletAccount(ethereum, chainId, data.chainName);
      made ??= await postAccepted(data.walletUrl, { email: email.value.trim(), wallet: from });
      const response = await fetch(`${made.mandate_url}.json`, { cache: 'no-store' });
      const request = await response.json();
      if (!response.ok) throw new Error(request.error || `HTTP ${response.status}`);
      // A fiat plan's cap is the page's proposal (today's price and a margin), the one its words state.
      const terms = { ...request.message, customer: from, cap: request.cap ?? data.cap };
      const signature = await ethereum.request({
        method: 'eth_signTypedData_v4',
        params: [
          from,
          JSON.stringify({
            types: request.types,
            domain: request.domain,
            primaryType: 'Terms',
            message: terms,
          }),
        ],
      });
      const permit = await signPermit(ethereum, from, request, BigInt(data.allowance));
      await postAccepted(made.mandate_url, { terms, signature, permit });
      window.location.assign(made.portal_url);
    } catch (error) {
      showFailure(kit, error);
      busy = false;
      button.disabled = false;
    }
  });
}

/** USDC's EIP-2612 permit of the charger for the page's allowance: the whole plan, or 12 periods when open-ended. */
async function signPermit(ethereum, from, request, value) {
  const token = request.message.token;
  const call = async (data) =>
    ethereum.request({ method: 'eth_call', params: [{ to: token, data }, 'latest'] });
  const [name, version, nonce] = await Promise.all([
    call(NAME_SELECTOR).then(abiString),
    call(VERSION_SELECTOR).then(abiString),
    call(NONCES_SELECTOR + abiWord(from)).then((word) => BigInt(word)),
  ]);
  const deadline = BigInt(request.message.start) + PERMIT_VALID_S;
  const typed = {
    // USDC's domain is of the mandate's domain type (name, version, chain id, contract).
    types: { EIP712Domain: request.types.EIP712Domain, Permit: PERMIT_TYPES },
    domain: { name, version, chainId: request.domain.chainId, verifyingContract: token },
    primaryType: 'Permit',
    message: {
      owner: from,
      spender: request.spender,
      value: value.toString(),
      nonce: nonce.toString(),
      deadline: deadline.toString(),
    },
  };
  const signature = await ethereum.request({
    method: 'eth_signTypedData_v4',
    params: [from, JSON.stringify(typed)],
  });
  return { value: value.toString(), deadline: deadline.toString(), signature };
}

/** An ABI-encoded string return value (offset, length, bytes) as text. */
function abiString(hex) {
  const body = hex.slice(2);
  const length = Number.parseInt(body.slice(64, 128), 16);
  const bytes = body.slice(128, 128 + length * 2).match(/../g) ?? [];
  return new TextDecoder().decode(new Uint8Array(bytes.map((b) => Number.parseInt(b, 16))));
}

/** The portal's "Revoke on chain": the charger's `cancel(terms)`, sent from the wallet (with gas). */
function revokeOf(root, ethereum) {
  const button = root.querySelector('[data-revoke]');
  // Canceled on chain already: the portal offers nothing to revoke.
  if (!button) return;
  const transaction = { to: root.dataset.charger, data: root.dataset.cancelData };
  walletButton(root, ethereum, { button, transaction, done: 'revoked' });
}

/** The portal's "Allow 12 more periods": USDC's approve of the charger, sent from the wallet (with gas). */
function topUpOf(root, ethereum) {
  const button = root.querySelector('[data-top-up]');
  const transaction = { to: root.dataset.token, data: root.dataset.approveData };
  walletButton(root, ethereum, { button, transaction, done: 'toppedUp', once: true });
}

/**
 * A portal button that sends one transaction from the customer's wallet, says `done` once it is mined (and goes,
 * when it is good `once`), or says what failed and can be pressed again.
 */
function walletButton(root, ethereum, { button, transaction, done, once = false }) {
  const kit = sectionKit(root);
  button.hidden = false;
  button.addEventListener('click', async () => {
    button.disabled = true;
    kit.say('working');
    try {
      const from = await walletAccount(ethereum, Number(root.dataset.chainId), '');
      await sentAndMined(ethereum, { from, ...transaction });
      kit.say(done);
      if (once) button.hidden = true;
    } catch (error) {
      showFailure(kit, error);
      button.disabled = false;
    }
  });
}

/** Sends a transaction from the wallet and waits (two minutes at most) for it to be mined, successfully. */
async function sentAndMined(ethereum, tx) {
  const hash = await ethereum.request({ method: 'eth_sendTransaction', params: [tx] });
  for (let i = 0; i < 120; i++) {
    const receipt = await ethereum.request({ method: 'eth_getTransactionReceipt', params: [hash] });
    if (receipt) {
      if (receipt.status !== '0x1') throw new Error(`transaction ${hash} failed`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`transaction ${hash} not mined yet`);
}

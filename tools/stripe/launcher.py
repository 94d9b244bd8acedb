"""localstripe as the Stripe peer of the test suites, one in-memory instance per test.

    tools/stripe/.venv/bin/python tools/stripe/launcher.py --port 8420 \
        --plan price_pro:500 --plan price_team:1000

Imports the localstripe package (tools/stripe/requirements.txt) and serves its aiohttp routes on
127.0.0.1:PORT, with the harness's bridges (monkeypatches here, never in production code):

  * state lives in memory only and starts empty (localstripe pickles its store to a fixed file in
    the temp directory after every write, which parallel instances would share);
  * every exported object (API answers and webhook payloads alike) gets the fields async-stripe
    0.41 requires and localstripe omits (`REQUIRED_DEFAULTS`), and subscription items and invoice
    lines a `price` next to their `plan` (a plan id is the price id);
  * Checkout Sessions (`POST/GET /v1/checkout/sessions`, embedded mode, subscriptions), completed
    by the test-control route `POST /_test/checkout/sessions/{id}/complete` (body JSON or form:
    `card` number, default 4242424242424242; `authenticate`, default true, answers a 3-D Secure
    card's challenge);
  * the Stripe.js stand-in at /js.stripe.com/v3/ gains `initEmbeddedCheckout` (STRIPE_JS_ADDITIONS);
  * the card flow behaves as Stripe's does where localstripe differs: a confirmed SetupIntent
    attaches its card to its customer; a declined SetupIntent goes back to
    `requires_payment_method` with `last_setup_error` (localstripe cancels it); `items[][price]`
    is accepted as `items[][plan]`; `POST /v1/subscriptions/{id}` takes `proration_behavior`
    (`always_invoice` invoices and charges the change at once; then the subscription is
    `past_due` while that invoice is unpaid) and `payment_behavior=allow_incomplete`; a charge
    declined while paying an invoice fires `payment_intent.payment_failed` and
    `invoice.payment_failed` (localstripe fires nothing); a failed 3-D Secure challenge on a
    first payment leaves the subscription `incomplete` (localstripe cancels it); the events
    `invoice.paid`, `invoice.payment_action_required` and `customer.subscription.updated` fire;
    card errors (402) have `type: card_error`; `POST /v1/invoices/{id}/pay` answers a declined
    charge with 402; lists are newest first; a POST with an `Idempotency-Key` already seen gets
    the first answer again; `GET /v1/prices/{id}` answers a plan as the Price it stands for;
  * config/test routes (no key needed): `POST /_config/webhooks/{id}` (`url`, `secret`, optional
    `events[]`; localstripe's own), `DELETE /_config/webhooks[/{id}]`, `DELETE /_config/data`,
    `POST /_test/events/{id}/resend` (delivers a stored event again: same id, same signed
    timestamp).

Webhooks are delivered about one second after the event, each on its own, so their order at the
receiver is not guaranteed (nor is it with Stripe); `GET /v1/events` lists them newest first.

What localstripe (with these bridges) does for each test card, measured. The flow: customer;
SetupIntent for it, confirmed with the card as Stripe.js would (`confirmCardSetup`); the card
attached and made the customer's default; subscription created with `items[0][plan]` (default
`payment_behavior`, i.e. allow_incomplete) and `expand[]=latest_invoice.payment_intent`.
Events are listed in creation order, after `customer.created` and `customer.updated`.

  4242424242424242  setup: succeeded. Subscription `active`; latest invoice `paid`; payment
      intent `succeeded`, no last_payment_error. Events: invoice.created,
      payment_intent.succeeded, invoice.paid, invoice.payment_succeeded,
      customer.subscription.created.
  4000002500003155  setup: `requires_action` (Stripe.js shows the 3-D Secure dialog; confirming
      again succeeds, cancelling makes the SetupIntent `canceled`). Subscription `incomplete`;
      invoice `open`; payment intent `requires_action` (next_action use_stripe_sdk), no
      last_payment_error. Events: invoice.created, invoice.payment_action_required,
      customer.subscription.created. `confirmCardPayment` succeeding: payment intent
      `succeeded`, invoice `paid`, subscription `active`; events payment_intent.succeeded,
      invoice.paid, invoice.payment_succeeded, customer.subscription.updated. Failing: payment
      intent `requires_payment_method` with last_payment_error
      {code: payment_intent_authentication_failure, message: "The provided PaymentMethod has
      failed authentication."}, invoice `open`, subscription stays `incomplete`; events
      invoice.payment_failed, payment_intent.payment_failed.
      (Real Stripe asks this card for 3-D Secure at setup only and lets later off-session
      payments through; localstripe asks on every payment, as Stripe does for 4000002760003184,
      which localstripe treats the same way.)
  4000000000000002  declined at setup: the confirm answers 402 {type: card_error, code:
      card_declined, message: "Your card was declined."}; the SetupIntent is
      `requires_payment_method` with that last_setup_error; attaching the card also answers
      402. No subscription can be made with it.
  4000000000000341  setup: succeeded, attaches. Subscription created (200) `incomplete`;
      invoice `open`; payment intent `requires_payment_method` with last_payment_error {type:
      card_error, code: card_declined, message: "Your card was declined."}. Events:
      invoice.created, payment_intent.payment_failed, invoice.payment_failed,
      customer.subscription.created.
  Plan change pro -> team (`items[0][id]`, `items[0][plan]`, `proration_behavior=always_invoice`):
      the item's plan changes at once; a new invoice of 1000 less the "Unused time" credit of
      every earlier invoice of the subscription (so 500 after one paid month of pro) is charged
      to the default card. 4242: invoice `paid`, subscription `active`; events invoice.created,
      payment_intent.succeeded, invoice.paid, invoice.payment_succeeded,
      customer.subscription.updated. A default card declined on charge (0341): invoice `open`,
      subscription `past_due`; events invoice.created, payment_intent.payment_failed,
      invoice.payment_failed, customer.subscription.updated. A 3-D Secure card (3155): payment
      intent `requires_action`, subscription `past_due`; events invoice.created,
      invoice.payment_action_required, customer.subscription.updated; the challenge passed, it
      is `active` again (customer.subscription.updated). `proration_behavior=none` changes the
      plan with no invoice; `create_prorations` leaves the credit as a pending invoice item for
      the customer's next invoice (localstripe credits whole earlier invoices, not time).
  Cancel (`DELETE /v1/subscriptions/{id}`): status `canceled`, `canceled_at`/`ended_at` set;
      event customer.subscription.deleted.
  Checkout (`/_test/.../complete`): 4242 -> PaymentMethod attached and made the default,
      subscription `active` with an invoice `paid`, session `complete`/`paid`; events
      customer.updated, invoice.created, payment_intent.succeeded, invoice.paid,
      invoice.payment_succeeded, customer.subscription.created, checkout.session.completed.
      0002 or 0341 -> 402 card_declined and nothing created (the session stays `open`);
      3155 -> the challenge passes unless `authenticate` is false (402
      payment_intent_authentication_failure).
"""

import argparse
import asyncio
import copy
import inspect
import json
import logging
import os
import sys
import threading

from aiohttp import web

from localstripe import errors, server, webhooks
from localstripe.resources import (
    Customer, Event, Invoice, PaymentIntent, PaymentMethod, Plan, SetupIntent,
    StripeObject, Store, Subscription, UserError, random_id, schedule_webhook)

# --- In memory only

Store.dump_to_disk = lambda self: None
Store.try_load_from_disk = lambda self: None


# --- The fields async-stripe 0.41 requires ------------------------------------------------

def price_of(plan):
    """The Price a plan stands for (localstripe knows plans only; the ids are the same)."""
    if not isinstance(plan, dict):
        return None
    return {
        'id': plan['id'], 'object': 'price', 'active': plan.get('active', True),
        'billing_scheme': plan.get('billing_scheme', 'per_unit'), 'created': plan.get('created'),
        'currency': plan.get('currency'), 'livemode': False, 'lookup_key': None,
        'metadata': plan.get('metadata') or {}, 'nickname': plan.get('nickname'),
        'product': plan.get('product'), 'tiers_mode': plan.get('tiers_mode'),
        'type': 'recurring', 'unit_amount': plan.get('amount'),
        'unit_amount_decimal': None if plan.get('amount') is None else str(plan['amount']),
        'recurring': {'interval': plan.get('interval'), 'interval_count': plan.get('interval_count', 1),
                      'usage_type': plan.get('usage_type', 'licensed'), 'aggregate_usage': None},
    }


def card_error(error):
    if error is not None and 'type' not in error:
        auth = error.get('code') == 'payment_intent_authentication_failure'
        error['type'] = 'invalid_request_error' if auth else 'card_error'
    return error


# Per `object`: field -> default (a function of the exported object, or a value), used when the
# field is missing or null.
REQUIRED_DEFAULTS = {
    'event': {
        'pending_webhooks': lambda o: len(webhooks._webhooks),
        'request': {'id': None, 'idempotency_key': None},
    },
    'subscription': {
        'automatic_tax': {'enabled': False, 'liability': None},
        'billing_cycle_anchor': lambda o: o.get('current_period_start') or o.get('start_date'),
        'currency': lambda o: (o.get('plan') or {}).get('currency', 'usd'),
        'collection_method': 'charge_automatically',
        'canceled_at': lambda o: o.get('ended_at') if o.get('status') == 'canceled' else None,
    },
    'subscription_item': {'price': lambda o: price_of(o.get('plan'))},
    'line_item': {'discountable': True, 'price': lambda o: price_of(o.get('plan'))},
    'invoice': {
        'paid': lambda o: o.get('status') == 'paid',
        'amount_remaining': lambda o: (o.get('amount_due') or 0) - (o.get('amount_paid') or 0),
        'automatic_tax': {'enabled': False, 'status': None, 'liability': None},
    },
    'payment_intent': {
        'amount_capturable': 0,
        'amount_received': lambda o: o['amount'] if o.get('status') == 'succeeded' else 0,
        'confirmation_method': 'automatic',
        'payment_method_types': ['card'],
    },
    'setup_intent': {'last_setup_error': None},
    'charge': {
        'amount_captured': lambda o: o['amount'] if o.get('captured') and o.get('status') == 'succeeded' else 0,
        'billing_details': {'address': None, 'email': None, 'name': None, 'phone': None},
        'disputed': False,
    },
    'list': {'url': ''},
}


def fill_required(value):
    """Adds the defaults above, recursively, to an exported object."""
    if isinstance(value, list):
        for item in value:
            fill_required(item)
    elif isinstance(value, dict):
        kind = value.get('object') if isinstance(value.get('object'), str) else None
        for field, default in REQUIRED_DEFAULTS.get(kind, {}).items():
            if value.get(field) is None:
                value[field] = default(value) if callable(default) else copy.deepcopy(default)
        if kind == 'payment_intent':
            card_error(value.get('last_payment_error'))
        if kind == 'subscription' and isinstance(value.get('items'), dict):
            for item in value['items'].get('data') or []:
                item.setdefault('subscription', value['id'])
        for item in value.values():
            fill_required(item)
    return value


_original_export = StripeObject._export
StripeObject._export = lambda self, expand=None: fill_required(_original_export(self, expand=expand))

_list_all = StripeObject._api_list_all.__func__


def list_all(cls, url, limit=None, starting_after=None, **kwargs):
    """Lists newest first, as Stripe does (localstripe: oldest first, except invoices)."""
    listed = _list_all(cls, url, limit=limit, starting_after=starting_after, **kwargs)
    listed._list.reverse()
    return listed


StripeObject._api_list_all = classmethod(list_all)

_original_user_error_init = errors.UserError.__init__


def _user_error_init(self, code, message=None, contents=None):
    _original_user_error_init(self, code, message, contents)
    if code == 402:  # Stripe's card errors; localstripe calls them invalid_request_error
        self.body['error']['type'] = 'card_error'
        if self.body['error'].get('code') == 'card_declined':
            self.body['error'].setdefault('decline_code', 'generic_decline')


errors.UserError.__init__ = _user_error_init


# --- The card flow as Stripe does it

def announce(subscription, status_before):
    """customer.subscription.updated, when a subscription that was already announced changed
    status outside an update call (which announces itself)."""
    if getattr(subscription, '_announced', False) and not getattr(subscription, '_updating', False) \
            and subscription.status != status_before:
        schedule_webhook(Event('customer.subscription.updated', subscription))


def plan_from_price(items):
    for item in items or []:
        if isinstance(item, dict) and 'price' in item:
            item.setdefault('plan', item.pop('price'))
    return items


_subscription_init = Subscription.__init__


def subscription_init(self, items=None, off_session=None, **data):
    _subscription_init(self, items=plan_from_price(items), **data)
    self._announced = True


Subscription.__init__ = subscription_init

_subscription_update = Subscription._update
_subscription_update_params = set(inspect.signature(_subscription_update).parameters) - {'self'}


def subscription_update(self, proration_behavior=None, payment_behavior=None, off_session=None, **data):
    unexpected = set(data) - _subscription_update_params
    if unexpected:
        raise UserError(400, 'Unexpected ' + ', '.join(sorted(unexpected)))
    if proration_behavior not in (None, 'create_prorations', 'none', 'always_invoice'):
        raise UserError(400, 'Invalid proration_behavior')
    if payment_behavior not in (None, 'allow_incomplete'):
        raise UserError(400, 'The test peer supports payment_behavior=allow_incomplete only')
    plan_from_price(data.get('items'))
    plan_before, invoice_before = self.plan.id, self.latest_invoice
    pending_before = {key for key in server.store if key.startswith('invoiceitem:')}
    self._updating = True
    try:
        _subscription_update(self, **data)
        changed = self.plan.id != plan_before
        new_items = [key for key in server.store if key.startswith('invoiceitem:') and key not in pending_before]
        if proration_behavior == 'none':
            for key in new_items:  # localstripe always credits the unused time; Stripe not here
                del server.store[key]
        if changed and proration_behavior == 'always_invoice' and self.latest_invoice == invoice_before:
            self._create_invoice()
            if Invoice._api_retrieve(self.latest_invoice).status != 'paid':
                self.status = 'past_due'  # Stripe, allow_incomplete: the change applies, unpaid
    finally:
        self._updating = False
    schedule_webhook(Event('customer.subscription.updated', self))


Subscription._update = subscription_update

def announcing(original):
    def wrapper(self, invoice):
        before = self.status
        result = original(self, invoice)
        announce(self, before)
        return result
    return wrapper


Subscription._on_initial_payment_success = announcing(Subscription._on_initial_payment_success)
Subscription._on_recurring_payment_failure = announcing(Subscription._on_recurring_payment_failure)

_initial_failure_later = Subscription._on_initial_payment_failure_later


def initial_failure_later(self, invoice):
    intent = PaymentIntent._api_retrieve(invoice.payment_intent) if invoice.payment_intent else None
    if intent is not None and intent._authentication_failed:
        return  # Stripe: stays incomplete (until it expires a day later)
    _initial_failure_later(self, invoice)


Subscription._on_initial_payment_failure_later = initial_failure_later

_invoice_payment_success = Invoice._on_payment_success


def invoice_payment_success(self):
    schedule_webhook(Event('invoice.paid', self))
    _invoice_payment_success(self)


Invoice._on_payment_success = invoice_payment_success


def pay_invoice(cls, id):
    """Invoice._api_pay_invoice, reporting a declined charge as Stripe does."""
    invoice = Invoice._api_retrieve(id)
    if invoice.status == 'paid':
        raise UserError(400, 'Invoice is already paid')
    if invoice.status not in ('draft', 'open'):
        raise UserError(400, 'Bad request')
    invoice._draft = False
    if invoice.total <= 0:
        invoice._on_payment_success()
        return invoice
    method = Customer._api_retrieve(invoice.customer)._get_default_payment_method_or_source()
    if method is None:
        raise UserError(404, 'This customer has no payment method')
    intent = PaymentIntent(amount=invoice.total, currency=invoice.currency,
                           customer=invoice.customer, payment_method=method.id)
    invoice.payment_intent, intent.invoice = intent.id, invoice.id

    def declined():
        schedule_webhook(Event('payment_intent.payment_failed', intent))
        invoice._on_payment_failure_now()

    intent._confirm(on_failure_now=declined)
    if intent.status == 'requires_action':
        schedule_webhook(Event('invoice.payment_action_required', invoice))
    return invoice


Invoice._api_pay_invoice = classmethod(pay_invoice)


def pay_invoice_route(id, off_session=None, **unexpected):
    """POST /v1/invoices/{id}/pay: a declined charge answers 402, as Stripe does."""
    if unexpected:
        raise UserError(400, 'Unexpected ' + ', '.join(sorted(unexpected)))
    invoice = Invoice._api_pay_invoice(id)
    error = invoice.payment_intent and PaymentIntent._api_retrieve(invoice.payment_intent).last_payment_error
    if error:
        raise UserError(402, error['message'], {'code': error['code']})
    return invoice


_setup_attach = SetupIntent._attach_pm


def setup_attach(self, pm):
    try:
        _setup_attach(self, pm)
    except UserError as declined:
        self.status, self.payment_method = 'requires_payment_method', None
        self.last_setup_error = dict(declined.body['error'], payment_method=pm._export())
        raise
    self.last_setup_error = None


SetupIntent._attach_pm = setup_attach


def confirm_setup_route(**data):
    intent = SetupIntent._api_confirm(**data)
    if intent.status == 'succeeded' and intent.customer and intent.payment_method:
        # Stripe attaches a set-up card to the intent's customer
        PaymentMethod._api_retrieve(intent.payment_method).customer = intent.customer
    return intent


def authenticate_route(**data):
    intent = PaymentIntent._api_authenticate(**data)
    if intent._authentication_failed:
        schedule_webhook(Event('payment_intent.payment_failed', intent))
    return intent


# --- Checkout Sessions

class CheckoutSession(StripeObject):
    object = 'checkout.session'
    _id_prefix = 'cs_test_'

    def __init__(self, mode=None, ui_mode='hosted', customer=None, customer_email=None,
                 line_items=None, return_url=None, redirect_on_completion='always', metadata=None,
                 client_reference_id=None, subscription_data=None, payment_method_types=None,
                 **kwargs):
        if kwargs:
            raise UserError(400, 'Unexpected ' + ', '.join(sorted(kwargs)))
        if mode != 'subscription' or ui_mode != 'embedded':
            raise UserError(400, 'The test peer supports mode=subscription with ui_mode=embedded only')
        if not isinstance(line_items, list) or len(line_items) != 1 or not line_items[0].get('price'):
            raise UserError(400, 'One line item with a price is required')
        if redirect_on_completion not in ('always', 'if_required', 'never'):
            raise UserError(400, 'Invalid redirect_on_completion')
        if not return_url and redirect_on_completion != 'never':
            raise UserError(400, 'return_url is required')
        plan = Plan._api_retrieve(line_items[0]['price'])
        quantity = int(line_items[0].get('quantity') or 1)
        if customer is not None:
            Customer._api_retrieve(customer)
        super().__init__()
        self.mode, self.ui_mode, self.redirect_on_completion = mode, ui_mode, redirect_on_completion
        self.customer, self.customer_email, self.customer_details = customer, customer_email, None
        self.client_reference_id, self.metadata = client_reference_id, metadata or {}
        self.client_secret = self.id + '_secret_' + random_id(24)
        self.return_url = return_url and return_url.replace('{CHECKOUT_SESSION_ID}', self.id)
        self.status, self.payment_status = 'open', 'unpaid'
        self.subscription = self.invoice = self.payment_intent = self.setup_intent = None
        self.url = self.success_url = self.cancel_url = self.locale = None
        self.expires_at = self.created + 24 * 3600
        self.currency = plan.currency
        self.amount_subtotal = self.amount_total = plan.amount * quantity
        self.total_details = {'amount_discount': 0, 'amount_shipping': 0, 'amount_tax': 0}
        self.payment_method_types = payment_method_types or ['card']
        self.automatic_tax = {'enabled': False, 'liability': None, 'status': None}
        self.custom_fields, self.shipping_options = [], []
        self.custom_text = {'after_submit': None, 'shipping_address': None, 'submit': None,
                            'terms_of_service_acceptance': None}
        self._plan, self._quantity = plan.id, quantity
        self._subscription_metadata = (subscription_data or {}).get('metadata') or {}

    def _complete(self, card, authenticate):
        """What Stripe does when the customer pays the session with `card`."""
        if self.status != 'open':
            raise UserError(400, 'This Checkout Session is no longer open')
        method = PaymentMethod(type='card', billing_details={'email': self.customer_email},
                               card={'number': card, 'exp_month': '12', 'exp_year': '2034', 'cvc': '123'})
        if method._attaching_is_declined() or method._charging_is_declined():
            raise UserError(402, 'Your card was declined.', {'code': 'card_declined'})
        if method._requires_authentication() and not authenticate:
            raise UserError(402, 'The provided PaymentMethod has failed authentication.',
                            {'code': 'payment_intent_authentication_failure'})
        if self.customer is None:
            self.customer = Customer(email=self.customer_email).id
        customer = Customer._api_retrieve(self.customer)
        PaymentMethod._api_attach(method.id, customer=customer.id)
        Customer._api_update(customer.id, invoice_settings={'default_payment_method': method.id})
        subscription = Subscription(customer=customer.id, metadata=dict(self._subscription_metadata),
                                    items=[{'plan': self._plan, 'quantity': self._quantity}])
        intent_id = Invoice._api_retrieve(subscription.latest_invoice).payment_intent
        intent = intent_id and PaymentIntent._api_retrieve(intent_id)
        if intent and intent.status == 'requires_action':
            PaymentIntent._api_authenticate(intent.id, client_secret=intent.client_secret, success=True)
        self.status, self.payment_status = 'complete', 'paid'
        self.subscription, self.invoice = subscription.id, subscription.latest_invoice
        self.customer_details = {'email': customer.email, 'name': customer.name, 'phone': None,
                                 'address': None, 'tax_exempt': 'none', 'tax_ids': []}
        schedule_webhook(Event('checkout.session.completed', self))


async def request_data(request):
    data = await server.get_post_data(request) or {}
    data.update(server.unflatten_data(request.query))
    return data


def expandable(session, expand):
    """The expand[] paths that name an id of the session (others are left out, harmlessly)."""
    exported = _original_export(session)
    paths = [expand] if isinstance(expand, str) else expand or []
    return [path for path in paths if isinstance(exported.get(path.split('.')[0]), str)]


async def create_checkout_session(request):
    data = await request_data(request)
    expand = data.pop('expand', None)
    session = CheckoutSession(**data)
    return server.json_response(session._export(expand=expandable(session, expand)))


async def retrieve_checkout_session(request):
    data = await request_data(request)
    data.pop('key', None)
    session = CheckoutSession._api_retrieve(request.match_info['id'])
    return server.json_response(session._export(expand=expandable(session, data.get('expand'))))


async def complete_checkout_session(request):
    try:
        data = await request.json()
    except (json.JSONDecodeError, ValueError):
        data = dict(await request.post())
    card = str(data.get('card') or '4242424242424242').replace(' ', '')
    authenticate = str(data.get('authenticate', 'true')).lower() != 'false'
    session = CheckoutSession._api_retrieve(request.match_info['id'])
    session._complete(card, authenticate)
    return server.json_response(session._export())


async def retrieve_price(request):
    return server.json_response(price_of(Plan._api_retrieve(request.match_info['id'])._export()))


# --- Config and test routes

async def forget_webhooks(request):
    if 'id' in request.match_info:
        webhooks._webhooks.pop(request.match_info['id'], None)
    else:
        webhooks._webhooks.clear()
    return web.Response()


async def resend_event(request):
    event = Event._api_retrieve(request.match_info['id'])
    schedule_webhook(event)
    return server.json_response(event._export())


# --- The Stripe.js stand-in with embedded Checkout -----------------------------------------

STRIPE_JS_ADDITIONS = r"""
/*
 * Papertide's test harness (tools/stripe/launcher.py) adds to localstripe's stand-in above.
 * What the stand-in supports, all talking to this localstripe:
 *   Stripe(publishableKey)                      (options ignored)
 *   .elements(options?).create('card', options?) one card element (options such as
 *       hidePostalCode are ignored): text inputs with placeholders
 *       number, exp_month (MM), exp_year (YY, two digits), cvc, postal_code;
 *       element.mount(selectorOrElement), unmount(), destroy(), on('change' | 'ready', handler)
 *       (the handler gets {elementType, empty, complete, error: undefined}), and no-op
 *       update(), focus(), blur(), clear()
 *   .confirmCardSetup(clientSecret, {payment_method: {card: element, billing_details}})
 *       -> {setupIntent} | {error}; a 3-D Secure card opens a dialog with the buttons
 *       "Complete authentication" and "Fail authentication"
 *   .confirmCardPayment(clientSecret) -> {paymentIntent} | {error} (a failed challenge is an
 *       error, as with Stripe.js); always opens that dialog
 *   .initEmbeddedCheckout({fetchClientSecret | clientSecret, onComplete?})
 *       -> Promise<{mount(selectorOrElement), unmount(), destroy()}>, as Stripe's; mounted, it
 *       shows the amount, a card-number input (aria-label "Card number", prefilled
 *       4242 4242 4242 4242) and a "Pay" button, which completes the session through
 *       /_test/checkout/sessions/{id}/complete (a 3-D Secure card passes its challenge), then
 *       calls onComplete and, unless redirect_on_completion is "never", goes to return_url.
 *       A declined card shows Stripe's message (role "alert") and leaves the session open.
 * Load it with a classic <script src=".../js.stripe.com/v3/"> (it reads document.currentScript).
 */
(function () {
  const changeEvent = (element) => {
    const card = (element.value && element.value.card) || {};
    return {
      elementType: 'card',
      empty: !card.number,
      complete: (card.number || '').length >= 16 && !!card.exp_month && (card.exp_year || '').length >= 4 &&
        (card.cvc || '').length >= 3,
      error: undefined,
    };
  };
  const on = Element.prototype.on;
  Element.prototype.on = function (event, handler) {
    on.call(this, event, () => handler(changeEvent(this)));
    return this;
  };
  const mount = Element.prototype.mount;
  Element.prototype.mount = function (target) {
    mount.call(this, target);
    setTimeout(() => (this.listeners.ready || []).forEach((handler) => handler()), 0);
  };
  for (const name of ['update', 'focus', 'blur', 'clear']) {
    Element.prototype[name] = Element.prototype[name] || function () {};
  }

  async function embeddedCheckout(apiKey, options) {
    const secret = options.clientSecret || (await options.fetchClientSecret());
    const id = secret.split('_secret_')[0];
    const sessionUrl = `${LOCALSTRIPE_BASE_API}/v1/checkout/sessions/${id}?key=${encodeURIComponent(apiKey)}`;
    const session = await (await fetch(sessionUrl)).json();
    if (session.error) throw new Error(session.error.message);

    const root = document.createElement('div');
    root.className = 'localstripe-embedded-checkout';
    const title = document.createElement('p');
    title.textContent = `localstripe Checkout: ${(session.amount_total / 100).toFixed(2)} ` +
      `${String(session.currency).toUpperCase()} per period`;
    const card = document.createElement('input');
    card.type = 'text';
    card.setAttribute('aria-label', 'Card number');
    card.value = '4242 4242 4242 4242';
    const pay = document.createElement('button');
    pay.type = 'button';
    pay.textContent = 'Pay';
    const error = document.createElement('p');
    error.setAttribute('role', 'alert');
    root.append(title, card, pay, error);

    pay.addEventListener('click', async () => {
      pay.disabled = true;
      error.textContent = '';
      const response = await fetch(`${LOCALSTRIPE_BASE_API}/_test/checkout/sessions/${id}/complete`, {
        method: 'POST',
        body: JSON.stringify({ card: card.value.replace(/\s/g, '') }),
      });
      const body = await response.json().catch(() => ({}));
      if (!response.ok) {
        error.textContent = (body.error && body.error.message) || `Payment failed (${response.status})`;
        pay.disabled = false;
        return;
      }
      if (options.onComplete) options.onComplete();
      if (body.redirect_on_completion !== 'never' && body.return_url) window.location.assign(body.return_url);
    });

    return {
      mount(target) {
        const element = typeof target === 'string' ? document.querySelector(target) : target;
        if (!element) throw new Error('initEmbeddedCheckout: nothing to mount into');
        element.appendChild(root);
      },
      unmount() {
        root.remove();
      },
      destroy() {
        root.remove();
      },
    };
  }

  const localStripe = Stripe;
  Stripe = function (apiKey) {
    const stripe = localStripe(apiKey);
    stripe.initEmbeddedCheckout = (options) => embeddedCheckout(apiKey, options || {});
    // Stripe.js answers a failed challenge (or a card declined after it) with an error.
    const confirmCardPayment = stripe.confirmCardPayment;
    stripe.confirmCardPayment = async (clientSecret, data) => {
      const result = await confirmCardPayment(clientSecret, data);
      const intent = result.paymentIntent;
      if (intent && intent.status !== 'succeeded' && intent.last_payment_error) {
        return { error: { ...intent.last_payment_error, payment_intent: intent } };
      }
      return result;
    };
    return stripe;
  };
})();
"""


def stripe_js(request):
    path = os.path.join(os.path.dirname(server.__file__), 'localstripe-v3.js')
    with open(path) as f:
        # An <iframe> without a name would stop localstripe's check for the real Stripe.js.
        text = f.read().replace("iframes[i].getAttribute('name').startsWith",
                                "(iframes[i].getAttribute('name') || '').startsWith")
    return web.Response(text=text + STRIPE_JS_ADDITIONS, content_type='application/javascript')


# --- The application

@web.middleware
async def idempotency(request, handler):
    """A POST with an Idempotency-Key seen before gets the first answer again, as with Stripe."""
    key = request.headers.get('Idempotency-Key')
    if request.method != 'POST' or not key:
        return await handler(request)
    seen = request.app['idempotent'].get((key, request.path))
    if seen is None:
        response = await handler(request)
        if response.status < 500 and response.body is not None:
            seen = (response.status, response.body, response.content_type)
            request.app['idempotent'][(key, request.path)] = seen
        return response
    status, body, content_type = seen
    return web.Response(status=status, body=body, content_type=content_type,
                        headers={'Idempotent-Replayed': 'true'})


@web.middleware
async def auth(request, handler):
    """localstripe's checks, except that the test routes need no key and a session is read with
    the publishable key (as the Stripe.js stand-in does)."""
    if request.path.startswith('/_test/'):
        return await handler(request)
    if request.method == 'GET' and request.path.startswith('/v1/checkout/sessions/') \
            and request.query.get('key', '').startswith('pk_'):
        return await handler(request)
    return await server.auth_middleware(request, handler)


def create_app(plans):
    app = web.Application(middlewares=[idempotency, server.error_middleware, auth])
    app['idempotent'] = {}
    app.on_response_prepare.append(server.add_cors_headers)
    ours = [
        ('GET', '/js.stripe.com/v3/', stripe_js),
        ('GET', '/v1/prices/{id}', retrieve_price),
        ('POST', '/v1/checkout/sessions', create_checkout_session),
        ('GET', '/v1/checkout/sessions/{id}', retrieve_checkout_session),
        ('POST', '/_test/checkout/sessions/{id}/complete', complete_checkout_session),
        ('POST', '/_test/events/{id}/resend', resend_event),
        ('DELETE', '/_config/webhooks', forget_webhooks),
        ('DELETE', '/_config/webhooks/{id}', forget_webhooks),
        ('POST', '/v1/invoices/{id}/pay', server.api_extra(pay_invoice_route, None)),
        ('POST', '/v1/setup_intents/{id}/confirm', server.api_extra(confirm_setup_route, None)),
        ('POST', '/v1/payment_intents/{id}/_authenticate', server.api_extra(authenticate_route, None)),
    ]
    taken = {(method, path) for method, path, _ in ours} | {('HEAD', '/js.stripe.com/v3/')}
    for method, path, handler in ours:
        app.router.add_route(method, path, handler)
    for route in server.app.router.routes():
        path = route.resource.canonical
        if (route.method, path) not in taken:
            app.router.add_route(route.method, path, route.handler)

    async def create_plans(app):
        for plan_id, amount, currency, interval in plans:
            Plan(id=plan_id, amount=amount, currency=currency, interval=interval,
                 product={'name': plan_id})
    app.on_startup.append(create_plans)
    return app


def plan_argument(text):
    """ID:AMOUNT[:CURRENCY[:INTERVAL]], e.g. price_pro:500 (usd, month)."""
    parts = text.split(':')
    if not 2 <= len(parts) <= 4 or not parts[1].isdigit():
        raise argparse.ArgumentTypeError(f'{text!r} is not ID:AMOUNT[:CURRENCY[:INTERVAL]]')
    parts += ['usd', 'month'][len(parts) - 2:]
    return parts[0], int(parts[1]), parts[2], parts[3]


def exit_when_stdin_closes():
    """Watches standard input on a daemon thread, which never holds up a shutdown asked for by a
    signal, and ends the process when the input closes."""
    def watch():
        sys.stdin.buffer.read()
        os._exit(0)
    threading.Thread(target=watch, name='stdin-watch', daemon=True).start()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--plan', type=plan_argument, action='append', default=[],
                        help='a plan (= price) to create at start: ID:AMOUNT[:CURRENCY[:INTERVAL]]')
    parser.add_argument('--exit-with-stdin', action='store_true',
                        help='exit when standard input closes (the parent went away)')
    parser.add_argument('--verbose', action='store_true', help='log every request to stderr')
    args = parser.parse_args()

    app = create_app(args.plan)
    if args.exit_with_stdin:
        exit_when_stdin_closes()
    if args.verbose:
        logging.basicConfig(level=logging.INFO)
    web.run_app(app, host=args.host, port=args.port, print=None,
                access_log=logging.getLogger('aiohttp.access') if args.verbose else None)


if __name__ == '__main__':
    main()

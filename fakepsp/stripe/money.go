package stripe

import "math"

// Money as Stripe books it: every captured charge and every refund has a
// balance transaction in the account's currency (USD), converted at a fixed
// rate when the payment was in another currency, with exchange_rate set as
// Stripe sets it (amount in the payment's currency, in major units, times
// exchange_rate is the amount booked). Fees: 2.9% + 30 cents of the booked
// amount, Stripe's standard US card rate; a refund returns no fee.

const AccountCurrency = "usd"

// usdRates are fixed, plausible rates to USD: a test's amounts must not
// move with a market.
var usdRates = map[string]float64{
	"usd": 1, "eur": 1.08, "gbp": 1.27, "jpy": 0.0067, "cad": 0.73, "aud": 0.66, "nzd": 0.61, "chf": 1.13,
	"sek": 0.095, "nok": 0.094, "dkk": 0.145, "pln": 0.25, "czk": 0.043, "huf": 0.0028, "ron": 0.217,
	"bgn": 0.552, "isk": 0.0072, "try": 0.031, "mxn": 0.058, "brl": 0.2, "ars": 0.0011, "clp": 0.00105,
	"cop": 0.00025, "pen": 0.27, "inr": 0.012, "cny": 0.138, "hkd": 0.128, "sgd": 0.74, "krw": 0.00073,
	"twd": 0.031, "thb": 0.028, "myr": 0.215, "idr": 0.000063, "php": 0.0175, "vnd": 0.00004, "aed": 0.272,
	"sar": 0.267, "ils": 0.27, "zar": 0.054, "egp": 0.0205, "ngn": 0.00066, "kes": 0.0077,
}

// zeroDecimal currencies count whole units (https://docs.stripe.com/currencies#zero-decimal).
var zeroDecimal = map[string]bool{"jpy": true, "krw": true, "vnd": true, "clp": true}

// Booked converts amount (minor units of currency) into the account's
// currency; the rate is nil when no conversion happened.
func Booked(amount int64, currency string) (int64, any) {
	if currency == AccountCurrency {
		return amount, nil
	}
	rate := usdRates[currency]
	major := float64(amount)
	if !zeroDecimal[currency] {
		major /= 100
	}
	return int64(math.Round(major * rate * 100)), rate
}

// Fee is Stripe's standard US card fee on a booked amount.
func Fee(amount int64) int64 { return (amount*29+500)/1000 + 30 }

// TxnJSON is a balance transaction of amount (negative for a refund).
func TxnJSON(id string, amount, fee int64, rate any, typ, source string, created int64) map[string]any {
	details := []any{}
	if fee != 0 {
		details = append(details, map[string]any{"amount": fee, "application": nil, "currency": AccountCurrency,
			"type": "stripe_fee", "description": "Stripe processing fees"})
	}
	return Fill(map[string]any{
		"id": id, "object": "balance_transaction", "amount": amount, "currency": AccountCurrency, "exchange_rate": rate,
		"fee": fee, "net": amount - fee, "status": "available", "type": typ, "reporting_category": typ, "balance_type": "payments",
		"source": source, "created": created, "available_on": created, "fee_details": details,
	}, TxnNulls)
}

#!/usr/bin/env python3
"""Deterministic generator for the nl2sql evaluation corpus databases.

    python3 corpus/generate.py OUTDIR            # every database
    python3 corpus/generate.py OUTDIR shop iot   # only some

Writes OUTDIR/<database_id>.sqlite for each database, from fixed seeds (python3 stdlib
only; the same files byte for byte on every run). Each database stays under 30,000 rows.

Composite primary keys that include a text column are left out (the copier gives a text
key column VARCHAR(768), and MySQL/MariaDB refuse a key over 3072 bytes); those tables
(usage_daily, ticket_tags, weather, FxRate) have no declared key, as many exports do not.

Types are declared so that nl2sql's copier (native/src/copy) maps them well:
INTEGER -> bigint, REAL -> double, NUMERIC(p,s) -> numeric/DECIMAL(p,s), DATE -> date,
TIMESTAMP/DATETIME -> timestamp/DATETIME, BOOLEAN -> boolean (stored 0/1 here),
TEXT/VARCHAR -> text. Timestamps are UTC 'YYYY-MM-DD HH:MM:SS'. The few columns that keep a
local time with its offset ('2024-03-01T10:00:00+0200', strftime's %z) are TEXT, and stay
text in every engine: SQLite's date() does not read a %z offset, so the copier does not
turn them into timestamps.
"""

import datetime as dt
import json
import math
import os
import random
import sqlite3
import sys
import time

D = dt.date
T = dt.datetime
TD = dt.timedelta

# Every database's data ends on or before this day; "today" for questions is this day.
ANCHOR = D(2024, 6, 30)


def ts(x):
    return x.strftime("%Y-%m-%d %H:%M:%S") if x is not None else None


def ds(x):
    return x.isoformat() if x is not None else None


def money(x):
    return None if x is None else round(x + 1e-9, 2)


def local_with_offset(utc, minutes):
    """UTC datetime -> local wall time text with a strftime %z offset."""
    local = utc + TD(minutes=minutes)
    sign = "+" if minutes >= 0 else "-"
    m = abs(minutes)
    return local.strftime("%Y-%m-%dT%H:%M:%S") + f"{sign}{m // 60:02d}{m % 60:02d}"


def days_between(a, b):
    return (b - a).days


def rand_date(rng, a, b):
    return a + TD(days=rng.randint(0, (b - a).days))


def rand_time_on(rng, day, hour_weights=None):
    if hour_weights is None:
        h = rng.randint(0, 23)
    else:
        h = rng.choices(range(24), hour_weights)[0]
    return T(day.year, day.month, day.day, h, rng.randint(0, 59), rng.randint(0, 59))


def pick(rng, items, weights=None):
    if weights is None:
        return items[rng.randrange(len(items))]
    return rng.choices(items, weights)[0]


def zipf_weights(n, s=1.1):
    return [1.0 / ((i + 1) ** s) for i in range(n)]


def month_weight(day, weights):
    return weights[day.month - 1]


def seasonal_date(rng, a, b, monthw, weekdayw=None):
    """A date in [a, b], thinned by month and weekday weights (max weight 1)."""
    while True:
        d = rand_date(rng, a, b)
        w = monthw[d.month - 1]
        if weekdayw is not None:
            w *= weekdayw[d.weekday()]
        if rng.random() < w:
            return d


BUSINESS_HOURS = [1, 1, 1, 1, 1, 2, 4, 8, 12, 14, 14, 13, 11, 12, 13, 12, 11, 9, 7, 6, 5, 4, 3, 2]
EVENING_HOURS = [3, 2, 1, 1, 1, 1, 2, 4, 6, 7, 8, 9, 10, 10, 9, 9, 10, 11, 13, 15, 16, 14, 10, 6]

FIRST_NAMES = [
    "James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David",
    "Elizabeth", "William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas",
    "Sarah", "Carlos", "Karen", "Daniel", "Lisa", "Matthew", "Nancy", "Anthony", "Sofia",
    "Mark", "Emma", "Paul", "Olivia", "Steven", "Ava", "Andrew", "Mia", "Kenji", "Yuki",
    "Priya", "Arjun", "Fatima", "Omar", "Lars", "Ingrid", "Lukas", "Hannah", "Mateo",
    "Lucia", "Chen", "Mei", "Noah", "Amelia", "Liam", "Chloe", "Ethan", "Grace", "Aisha",
    "Diego", "Elena", "Hugo", "Julia", "Leo", "Nina", "Oscar", "Pablo", "Rosa", "Sven",
    "Tomas", "Ursula", "Victor", "Wen", "Zara",
]
LAST_NAMES = [
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis",
    "Rodriguez", "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson",
    "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Perez", "Thompson", "White",
    "Harris", "Sanchez", "Clark", "Lewis", "Robinson", "Walker", "Young", "Allen", "King",
    "Wright", "Scott", "Nguyen", "Hill", "Green", "Adams", "Baker", "Nelson", "Carter",
    "Mitchell", "Muller", "Schmidt", "Schneider", "Fischer", "Weber", "Dubois", "Laurent",
    "Rossi", "Russo", "Tanaka", "Suzuki", "Sato", "Patel", "Sharma", "Kim", "Park",
    "Andersson", "Johansson", "Novak", "Kowalski", "O'Brien", "Murphy", "Kelly", "Silva",
    "Santos", "Costa", "van Dijk", "de Vries", "Jansen",
]

COUNTRY_CITIES = {
    "US": ["New York", "Los Angeles", "Chicago", "Houston", "Phoenix", "Seattle", "Austin", "Boston", "Denver", "Miami"],
    "GB": ["London", "Manchester", "Birmingham", "Leeds", "Glasgow", "Bristol"],
    "DE": ["Berlin", "Munich", "Hamburg", "Cologne", "Frankfurt"],
    "FR": ["Paris", "Lyon", "Marseille", "Toulouse", "Lille"],
    "CA": ["Toronto", "Vancouver", "Montreal", "Calgary", "Ottawa"],
    "AU": ["Sydney", "Melbourne", "Brisbane", "Perth"],
    "NL": ["Amsterdam", "Rotterdam", "Utrecht", "Eindhoven"],
    "ES": ["Madrid", "Barcelona", "Valencia", "Seville"],
    "IT": ["Rome", "Milan", "Naples", "Turin"],
    "SE": ["Stockholm", "Gothenburg", "Malmo"],
    "JP": ["Tokyo", "Osaka", "Yokohama", "Nagoya"],
    "BR": ["Sao Paulo", "Rio de Janeiro", "Brasilia"],
    "IN": ["Mumbai", "Bengaluru", "Delhi", "Pune"],
    "MX": ["Mexico City", "Guadalajara", "Monterrey"],
}


def person(rng):
    return pick(rng, FIRST_NAMES), pick(rng, LAST_NAMES)


def email_of(first, last, n, domain):
    f = first.lower().replace(" ", "")
    l = last.lower().replace(" ", "").replace("'", "")
    return f"{f}.{l}{n}@{domain}"


# ---------------------------------------------------------------------------------------
# shop: e-commerce orders (declared foreign keys, snake_case, plural names)
# ---------------------------------------------------------------------------------------

SHOP_DDL = """
CREATE TABLE categories (
  category_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  parent_category_id INTEGER REFERENCES categories(category_id)
);
CREATE TABLE products (
  product_id INTEGER PRIMARY KEY,
  sku TEXT NOT NULL,
  name TEXT NOT NULL,
  category_id INTEGER NOT NULL REFERENCES categories(category_id),
  brand TEXT,
  unit_price NUMERIC(10,2) NOT NULL,
  unit_cost NUMERIC(10,2),
  is_active BOOLEAN NOT NULL,
  launched_on DATE NOT NULL,
  discontinued_on DATE
);
CREATE TABLE customers (
  customer_id INTEGER PRIMARY KEY,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  email TEXT,
  city TEXT,
  country TEXT NOT NULL,
  signup_date DATE NOT NULL,
  marketing_opt_in BOOLEAN NOT NULL,
  referred_by_customer_id INTEGER REFERENCES customers(customer_id),
  deleted_at TIMESTAMP
);
CREATE TABLE orders (
  order_id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
  ordered_at TIMESTAMP NOT NULL,
  status TEXT NOT NULL,
  channel TEXT NOT NULL,
  shipping_country TEXT NOT NULL,
  discount_code TEXT,
  shipping_fee NUMERIC(8,2) NOT NULL,
  cancelled_at TIMESTAMP,
  delivered_at TIMESTAMP,
  notes TEXT
);
CREATE TABLE order_items (
  order_item_id INTEGER PRIMARY KEY,
  order_id INTEGER NOT NULL REFERENCES orders(order_id),
  product_id INTEGER NOT NULL REFERENCES products(product_id),
  quantity INTEGER NOT NULL,
  unit_price NUMERIC(10,2) NOT NULL,
  discount_amount NUMERIC(10,2)
);
CREATE TABLE returns (
  return_id INTEGER PRIMARY KEY,
  order_item_id INTEGER NOT NULL REFERENCES order_items(order_item_id),
  requested_at TIMESTAMP NOT NULL,
  reason TEXT NOT NULL,
  status TEXT NOT NULL,
  refund_amount NUMERIC(10,2)
);
CREATE TABLE product_reviews (
  review_id INTEGER PRIMARY KEY,
  product_id INTEGER NOT NULL REFERENCES products(product_id),
  customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
  rating INTEGER NOT NULL,
  review_text TEXT,
  created_at TIMESTAMP NOT NULL
);
"""


def gen_shop(rng):
    out = {}
    cats = [
        (1, "Electronics", None), (2, "Home & Kitchen", None), (3, "Clothing", None),
        (4, "Sports & Outdoors", None), (5, "Beauty", None), (6, "Books", None),
        (7, "Phones & Accessories", 1), (8, "Computers", 1), (9, "Audio", 1),
        (10, "Cables & Chargers", 7), (11, "Cookware", 2), (12, "Furniture", 2),
        (13, "Bedding", 2), (14, "Men", 3), (15, "Women", 3), (16, "Kids", 3),
        (17, "Fitness", 4), (18, "Camping", 4), (19, "Skincare", 5), (20, "Hair Care", 5),
    ]
    out["categories"] = cats
    templates = {
        6: (["Paperback Novel", "Cookbook", "Travel Guide", "Notebook Set", "Kids Picture Book", "Biography"], 8, 30, ["Penwood", "Harbor Press", "Inkline"]),
        7: (["Phone Case", "Screen Protector", "Phone Stand", "Car Mount", "PopGrip"], 8, 40, ["Volta", "Nexa", "Kora"]),
        8: (["Wireless Mouse", "Mechanical Keyboard", "USB Hub", "Laptop Sleeve", "Webcam HD", "27in Monitor", "Laptop Stand"], 15, 320, ["Volta", "Nexa", "Brightline"]),
        9: (["Wireless Earbuds", "Over-Ear Headphones", "Bluetooth Speaker", "Soundbar", "Turntable"], 25, 260, ["Sonora", "Nexa", "Echoic"]),
        10: (["USB-C Cable 1m", "USB-C Cable 2m", "Lightning Cable 1m", "65W Charger", "20W Charger", "Power Bank 10000mAh"], 7, 55, ["Volta", "Kora"]),
        11: (["Nonstick Frying Pan", "Cast Iron Skillet", "Stock Pot", "Chef Knife", "Cutting Board", "Saucepan Set"], 15, 140, ["Copperleaf", "Hearth & Co"]),
        12: (["Desk Chair", "Bookshelf", "Side Table", "Standing Desk", "Floor Lamp"], 45, 480, ["Oakhaus", "Linea"]),
        13: (["Duvet Cover", "Cotton Sheet Set", "Pillow Pair", "Weighted Blanket"], 25, 150, ["Softnest", "Linea"]),
        14: (["Crew T-Shirt", "Chino Trousers", "Hoodie", "Rain Jacket", "Wool Socks"], 9, 120, ["Northmark", "Basecamp"]),
        15: (["Linen Dress", "Yoga Leggings", "Cardigan", "Rain Jacket", "Wool Socks"], 9, 130, ["Northmark", "Aurelle"]),
        16: (["Kids Sneakers", "Kids Raincoat", "Pajama Set", "Kids Hoodie"], 12, 60, ["Little Oak", "Basecamp"]),
        17: (["Yoga Mat", "Dumbbell Pair 5kg", "Resistance Bands", "Foam Roller", "Jump Rope"], 8, 90, ["Peakform", "Basecamp"]),
        18: (["2-Person Tent", "Sleeping Bag", "Camping Stove", "Headlamp", "Water Filter"], 15, 260, ["Basecamp", "Trailcraft"]),
        19: (["Daily Moisturizer", "Vitamin C Serum", "SPF 50 Sunscreen", "Gentle Cleanser"], 9, 60, ["Aurelle", "Purelab"]),
        20: (["Shampoo", "Conditioner", "Hair Dryer", "Hair Oil"], 7, 110, ["Aurelle", "Purelab"]),
    }
    products = []
    pid = 0
    leaf_ids = list(templates.keys())
    while len(products) < 200:
        cat = leaf_ids[len(products) % len(leaf_ids)] if len(products) < 60 else pick(rng, leaf_ids, [3, 4, 5, 4, 3, 4, 2, 2, 5, 4, 2, 3, 2, 3, 2])
        names, lo, hi, brands = templates[cat]
        base = pick(rng, names)
        brand = pick(rng, brands)
        variant = pick(rng, ["", "", "", " - Black", " - White", " - Navy", " (2-pack)", " Pro", " Mini"])
        name = f"{brand} {base}{variant}"
        pid += 1
        price = round(math.exp(rng.uniform(math.log(lo), math.log(hi))), 0) - 0.01
        if rng.random() < 0.15:
            price = round(price / 5) * 5 - 0.01 if price > 10 else price
        cost = money(price * rng.uniform(0.35, 0.7)) if rng.random() > 0.06 else None
        launched = rand_date(rng, D(2021, 1, 1), D(2024, 3, 1))
        disc = None
        active = 1
        if rng.random() < 0.1:
            disc = rand_date(rng, max(launched + TD(days=90), D(2023, 3, 1)), D(2024, 6, 15))
            active = 0
        elif rng.random() < 0.03:
            active = 0
        products.append([pid, f"SKU-{cat:02d}-{pid:04d}", name, cat, brand, money(price), cost, active, ds(launched), ds(disc)])
    # duplicate-looking product names
    products[41][2] = products[40][2].replace("-", " ") if "-" in products[40][2] else products[40][2] + " "
    products[77][2] = products[76][2].lower()
    out["products"] = products
    pop = zipf_weights(len(products), 0.9)
    order_rank = list(range(len(products)))
    rng.shuffle(order_rank)
    prod_weight = [pop[order_rank[i]] for i in range(len(products))]

    countries = list(COUNTRY_CITIES.keys())[:10]
    cweights = [40, 12, 10, 8, 8, 6, 4, 4, 4, 4]
    customers = []
    for cid in range(1, 1501):
        first, last = person(rng)
        country = pick(rng, countries, cweights)
        city = pick(rng, COUNTRY_CITIES[country]) if rng.random() > 0.07 else None
        signup = seasonal_date(rng, D(2022, 6, 1), D(2024, 6, 25), [0.7, 0.6, 0.7, 0.7, 0.8, 0.8, 0.7, 0.7, 0.8, 0.9, 1.0, 1.0])
        email = email_of(first, last, cid % 97, pick(rng, ["example.com", "mail.test", "inbox.test"])) if rng.random() > 0.04 else None
        ref = rng.randint(1, cid - 1) if cid > 20 and rng.random() < 0.15 else None
        deleted = ts(rand_time_on(rng, rand_date(rng, max(signup, D(2023, 6, 1)), D(2024, 6, 29)))) if rng.random() < 0.03 else None
        customers.append([cid, first, last, email, city, country, ds(signup), 1 if rng.random() < 0.55 else 0, ref, deleted])
    # a few duplicate-looking customers (same name, different ids)
    for a, b in [(10, 11), (200, 731), (512, 1300), (88, 89)]:
        customers[b - 1][1], customers[b - 1][2] = customers[a - 1][1], customers[a - 1][2]
        customers[b - 1][5] = customers[a - 1][5]
    out["customers"] = customers

    monthw = [0.75, 0.6, 0.7, 0.7, 0.75, 0.7, 0.65, 0.7, 0.75, 0.85, 1.0, 0.95]
    codes = ["WELCOME15", "SPRING10", "BFCM25", "FREESHIP", "VIP20", "SUMMER24"]
    notes_pool = ["Leave at the back door", "Gift wrap please", "Call on arrival", "Deliver after 5pm",
                  "Fragile - handle with care", "Do not ring the bell", "Birthday present, no invoice in box"]
    orders, items, returns = [], [], []
    oid = iid = rid = 0
    for c in customers:
        cid = c[0]
        signup = D.fromisoformat(c[6])
        n = min(int(rng.expovariate(1 / 5.5)) + (1 if rng.random() < 0.82 else 0), 40)
        day = max(signup + TD(days=int(rng.expovariate(1 / 10))), D(2023, 1, 1) + TD(days=rng.randint(0, 60)))
        for _ in range(n):
            if day > D(2024, 6, 30):
                break
            if rng.random() > monthw[day.month - 1]:
                day += TD(days=rng.randint(3, 20))
                continue
            oid += 1
            t = rand_time_on(rng, day, EVENING_HOURS)
            channel = pick(rng, ["web", "app", "marketplace"], [55, 35, 10])
            age = (ANCHOR - day).days
            if age <= 2:
                status = pick(rng, ["placed", "shipped"], [6, 4])
            elif age <= 6:
                status = pick(rng, ["shipped", "delivered", "cancelled"], [5, 4, 1])
            else:
                status = pick(rng, ["delivered", "cancelled", "returned"], [85, 8, 7])
            code = None
            if rng.random() < 0.2:
                code = "BFCM25" if day.month == 11 and day.day > 20 else pick(rng, codes, [4, 3, 0, 3, 1, 2 if day.year == 2024 else 0])
            cancelled = ts(t + TD(hours=rng.randint(1, 40))) if status == "cancelled" else None
            delivered = ts(t + TD(days=rng.randint(1, 9), hours=rng.randint(0, 12))) if status in ("delivered", "returned") else None
            note = pick(rng, notes_pool) if rng.random() < 0.06 else None
            if note is not None and rng.random() < 0.3:
                note = note.upper()
            k = pick(rng, [1, 2, 3, 4, 5], [50, 25, 13, 7, 5])
            subtotal = 0
            chosen = []
            for _ in range(k):
                p = rng.choices(products, prod_weight)[0]
                if p[0] in chosen:
                    continue
                chosen.append(p[0])
                q = pick(rng, [1, 1, 1, 1, 2, 2, 3, 4])
                price = p[5]
                if day >= D(2024, 2, 1) and p[0] % 5 == 0:
                    price = money(price * 1.08)
                disc = money(price * q * 0.1) if rng.random() < 0.08 else None
                iid += 1
                items.append([iid, oid, p[0], q, price, disc])
                subtotal += price * q
                if status == "returned" and (len(chosen) == 1 or rng.random() < 0.4):
                    rid += 1
                    rstatus = pick(rng, ["approved", "rejected", "pending"], [80, 10, 10])
                    reason = pick(rng, ["damaged", "wrong size", "not as described", "changed mind", "late delivery"], [20, 30, 20, 25, 5])
                    req = D.fromisoformat(delivered[:10]) + TD(days=rng.randint(1, 25))
                    refund = money(price * q) if rstatus == "approved" else None
                    returns.append([rid, iid, ts(rand_time_on(rng, req, BUSINESS_HOURS)), reason, rstatus, refund])
            fee = 0.0 if subtotal >= 50 else pick(rng, [4.99, 4.99, 7.99])
            if code == "FREESHIP":
                fee = 0.0
            ship_country = c[5] if rng.random() > 0.03 else pick(rng, countries)
            orders.append([oid, cid, ts(t), status, channel, ship_country, code, fee, cancelled, delivered, note])
            gap = int(rng.expovariate(1 / 55)) + 1
            day = day + TD(days=gap)
    out["orders"] = orders
    out["order_items"] = items
    out["returns"] = returns
    reviews = []
    texts = ["Great value, would buy again.", "Stopped working after two weeks.", "Exactly as described.",
             "Colour is different from the photo.", "Fast delivery and well packed.", "Too small, had to return it.",
             "Excellent quality!", "Does the job.", "Terrible customer service experience.", "Love it, bought a second one as a gift."]
    bought = {}
    orders_by_id = {o[0]: o for o in orders}
    for it in items:
        o = orders_by_id[it[1]]
        if o[3] in ("delivered", "returned"):
            bought.setdefault((o[1], it[2]), o[9])
    keys = sorted(bought.keys())
    rng.shuffle(keys)
    for i, (cid, pid) in enumerate(keys[:2000]):
        rating = pick(rng, [5, 4, 3, 2, 1], [45, 25, 12, 8, 10])
        text = pick(rng, texts) if rng.random() > 0.4 else None
        when = T.fromisoformat(bought[(cid, pid)]) + TD(days=rng.randint(1, 40), hours=rng.randint(0, 20))
        if when.date() > ANCHOR:
            when = T(2024, 6, 30, 12, 0, 0)
        reviews.append([i + 1, pid, cid, rating, text, ts(when)])
    reviews.sort(key=lambda r: (r[5], r[1], r[2]))
    out["product_reviews"] = [[i + 1] + r[1:] for i, r in enumerate(reviews)]
    return out


# ---------------------------------------------------------------------------------------
# saas_billing: Stripe-like billing (no declared keys, text ids, epoch integers)
# ---------------------------------------------------------------------------------------

SAAS_DDL = """
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  industry TEXT,
  country TEXT NOT NULL,
  employee_band TEXT,
  created_at TIMESTAMP NOT NULL,
  churned_at TIMESTAMP,
  owner_email TEXT,
  is_test BOOLEAN NOT NULL
);
CREATE TABLE plans (
  plan_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  tier TEXT NOT NULL,
  billing_interval TEXT NOT NULL,
  amount_cents INTEGER NOT NULL,
  currency TEXT NOT NULL,
  is_legacy BOOLEAN NOT NULL
);
CREATE TABLE subscriptions (
  subscription_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  plan_id TEXT NOT NULL,
  status TEXT NOT NULL,
  started_at TIMESTAMP NOT NULL,
  trial_end DATE,
  canceled_at TIMESTAMP,
  cancel_reason TEXT,
  seats INTEGER NOT NULL,
  mrr NUMERIC(10,2) NOT NULL
);
CREATE TABLE invoices (
  invoice_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  subscription_id TEXT,
  created INTEGER NOT NULL,
  period_start DATE NOT NULL,
  period_end DATE NOT NULL,
  currency TEXT NOT NULL,
  amount_due NUMERIC(10,2) NOT NULL,
  amount_paid NUMERIC(10,2) NOT NULL,
  status TEXT NOT NULL,
  paid_at TIMESTAMP
);
CREATE TABLE invoice_line_items (
  line_item_id TEXT PRIMARY KEY,
  invoice_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  description TEXT,
  quantity INTEGER NOT NULL,
  amount NUMERIC(10,2) NOT NULL
);
CREATE TABLE payments (
  payment_id TEXT PRIMARY KEY,
  invoice_id TEXT NOT NULL,
  created INTEGER NOT NULL,
  amount NUMERIC(10,2) NOT NULL,
  outcome TEXT NOT NULL,
  failure_code TEXT,
  card_brand TEXT
);
CREATE TABLE usage_daily (
  account_id TEXT NOT NULL,
  usage_date DATE NOT NULL,
  api_calls INTEGER NOT NULL,
  storage_gb REAL
);
"""


def epoch(x):
    return int((x - T(1970, 1, 1)).total_seconds())


def add_months(d, n):
    y, m = divmod(d.month - 1 + n, 12)
    y += d.year
    m += 1
    last = [31, 29 if (y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
    return D(y, m, min(d.day, last))


def gen_saas(rng):
    out = {}
    plans = [
        ["starter_m", "Starter", "starter", "month", 2900, "usd", 0],
        ["starter_y", "Starter (annual)", "starter", "year", 29000, "usd", 0],
        ["growth_m", "Growth", "growth", "month", 9900, "usd", 0],
        ["growth_y", "Growth (annual)", "growth", "year", 99000, "usd", 0],
        ["scale_m", "Scale", "scale", "month", 29900, "usd", 0],
        ["scale_y", "Scale (annual)", "scale", "year", 299000, "usd", 0],
        ["basic_2021", "Basic (2021)", "starter", "month", 1900, "usd", 1],
        ["enterprise", "Enterprise", "enterprise", "month", 150000, "usd", 0],
    ]
    out["plans"] = plans
    plan_by = {p[0]: p for p in plans}
    prefixes = ["Acme", "Blue", "Nimbus", "Quantum", "Harbor", "Pine", "Vertex", "Summit", "Atlas", "Bright",
                "Cedar", "Delta", "Ember", "Falcon", "Granite", "Helix", "Iris", "Juniper", "Kite", "Lumen"]
    suffixes = ["Labs", "Analytics", "Logistics", "Health", "Studio", "Foods", "Robotics", "Capital", "Systems", "Media", "Retail", "Works"]
    industries = ["software", "healthcare", "retail", "finance", "education", "manufacturing", "media", None]
    accounts, subs, invoices, lines, payments = [], [], [], [], []
    inv_n = pay_n = line_n = sub_n = 0
    for a in range(1, 501):
        aid = f"acc_{a:05d}"
        name = f"{pick(rng, prefixes)} {pick(rng, suffixes)}"
        if a in (77, 311):
            name = accounts[10][1]
        created = T.combine(seasonal_date(rng, D(2022, 1, 1), D(2024, 6, 20), [1, .8, .9, .9, .8, .7, .6, .7, .9, 1, .9, .6]), dt.time(rng.randint(7, 22), rng.randint(0, 59), rng.randint(0, 59)))
        country = pick(rng, ["US", "GB", "DE", "FR", "CA", "AU", "NL", "IN", "BR"], [45, 12, 9, 6, 8, 5, 5, 6, 4])
        band = pick(rng, ["1-10", "11-50", "51-200", "201-1000", "1000+", None], [30, 30, 20, 10, 4, 6])
        is_test = 1 if rng.random() < 0.02 else 0
        email = f"billing@{name.lower().replace(' ', '')}{a}.test" if rng.random() > 0.05 else None
        tier_choice = pick(rng, ["starter", "growth", "scale", "basic", "enterprise"], [45, 32, 12, 6 if created.year < 2023 else 0, 3])
        interval = "year" if rng.random() < 0.25 and tier_choice in ("starter", "growth", "scale") else "month"
        plan_id = {"starter": "starter_", "growth": "growth_", "scale": "scale_"}.get(tier_choice)
        plan_id = plan_id + ("y" if interval == "year" else "m") if plan_id else ("basic_2021" if tier_choice == "basic" else "enterprise")
        start = created + TD(minutes=rng.randint(5, 600))
        churned = None
        # life of the account: a chain of subscriptions (upgrades), possibly ending in churn
        churn_at = None
        if rng.random() < 0.3:
            churn_at = start + TD(days=int(rng.expovariate(1 / 200)) + 15)
            if churn_at.date() > D(2024, 6, 29):
                churn_at = None
        seg_start = start
        chain = 0
        while True:
            chain += 1
            sub_n += 1
            sid = f"sub_{sub_n:06d}"
            plan = plan_by[plan_id]
            seats = 1 if plan[2] == "starter" else pick(rng, [2, 3, 5, 8, 10, 15, 25], [20, 20, 20, 15, 10, 10, 5])
            if plan_id == "enterprise":
                seats = pick(rng, [50, 100, 200])
            trial_end = (seg_start.date() + TD(days=14)) if chain == 1 and rng.random() < 0.6 else None
            end = None
            reason = None
            nxt = None
            if rng.random() < 0.25 and plan[2] in ("starter", "growth") and chain < 3:
                end = seg_start + TD(days=int(rng.expovariate(1 / 160)) + 30)
                nxt = {"starter": "growth_", "growth": "scale_"}[plan[2]] + ("y" if plan[3] == "year" else "m")
            if churn_at is not None and (end is None or churn_at < end):
                end, nxt = churn_at, None
                reason = pick(rng, ["too_expensive", "missing_features", "switched_service", "unused", "other", None], [25, 15, 15, 20, 10, 15])
            if end is not None and end.date() > D(2024, 6, 29):
                end, nxt, reason = None, None, None
            if trial_end is not None and end is not None and end.date() <= trial_end:
                end = T.combine(trial_end, dt.time(23, 59, 0))
            unit = plan[4] / 100.0 * (seats if plan[2] in ("growth", "scale") else (1 if plan[2] != "enterprise" else 1))
            mrr = unit / 12 if plan[3] == "year" else unit
            if trial_end is not None and trial_end > ANCHOR:
                status = "trialing"
            elif end is not None:
                status = "canceled"
            else:
                status = "active"
            sub_row = [sid, aid, plan_id, status, ts(seg_start), ds(trial_end), ts(end), reason, seats, money(mrr)]
            subs.append(sub_row)
            # invoices
            period = trial_end if trial_end is not None else seg_start.date()
            step = 12 if plan[3] == "year" else 1
            unpaid_streak = 0
            while period <= ANCHOR and (end is None or period < end.date()):
                inv_n += 1
                iid = f"in_{inv_n:06d}"
                pend = add_months(period, step)
                created_dt = T.combine(period, dt.time(rng.randint(0, 5), rng.randint(0, 59), rng.randint(0, 59)))
                due = money(unit)
                extra = []
                if rng.random() < 0.12:
                    extra.append(("usage", "API overage", rng.randint(1, 40) * 1000, money(rng.randint(1, 40) * 2.5)))
                if rng.random() < 0.05 and chain > 1:
                    extra.append(("proration", "Proration for plan change", 1, money(-unit * rng.uniform(0.1, 0.6))))
                if rng.random() < 0.07:
                    extra.append(("addon", "Priority support add-on", 1, 49.0))
                total = money(due + sum(e[3] for e in extra))
                age = (ANCHOR - period).days
                r = rng.random()
                if age < 3 and r < 0.5:
                    st = "open"
                elif r < 0.03:
                    st = "uncollectible"
                elif r < 0.05:
                    st = "void"
                elif r < 0.065:
                    st = "open" if age < 30 else "paid"
                else:
                    st = "paid"
                if is_test:
                    total = 0.0
                paid = total if st == "paid" else 0.0
                paid_at = None
                attempts = []
                if st == "paid":
                    fails = 0 if rng.random() < 0.88 else rng.randint(1, 3)
                    t0 = created_dt + TD(minutes=rng.randint(30, 120))
                    for f in range(fails):
                        attempts.append((t0, "failed", pick(rng, ["card_declined", "insufficient_funds", "expired_card", "processing_error"], [40, 30, 20, 10])))
                        t0 += TD(days=pick(rng, [1, 3, 5]), minutes=rng.randint(0, 90))
                    attempts.append((t0, "succeeded", None))
                    paid_at = ts(t0)
                elif st in ("uncollectible", "open") and age >= 3:
                    t0 = created_dt + TD(minutes=rng.randint(30, 120))
                    for f in range(rng.randint(1, 4)):
                        attempts.append((t0, "failed", pick(rng, ["card_declined", "insufficient_funds", "expired_card"], [40, 40, 20])))
                        t0 += TD(days=pick(rng, [1, 3, 5]))
                invoices.append([iid, aid, sid, epoch(created_dt), ds(period), ds(pend), "usd", total, paid, st, paid_at])
                line_n += 1
                lines.append([f"il_{line_n:07d}", iid, "subscription", f"{plan[1]} x {seats} seat(s)" if plan[2] in ("growth", "scale") else plan[1], seats, due])
                for kind, desc, qty, amt in extra:
                    line_n += 1
                    lines.append([f"il_{line_n:07d}", iid, kind, desc if rng.random() > 0.1 else None, qty, amt])
                brand = pick(rng, ["visa", "mastercard", "amex", None], [55, 30, 10, 5])
                for (t_at, outcome, code) in attempts:
                    if t_at.date() > ANCHOR:
                        continue
                    pay_n += 1
                    payments.append([f"py_{pay_n:07d}", iid, epoch(t_at), total, outcome, code, brand])
                period = pend
            if nxt is None:
                if end is not None:
                    churned = ts(end)
                break
            plan_id = nxt
            seg_start = end
        accounts.append([aid, name, pick(rng, industries), country, band, ts(created), churned, email, is_test])
    out["accounts"] = accounts
    out["subscriptions"] = subs
    out["invoices"] = invoices
    out["invoice_line_items"] = lines
    out["payments"] = payments
    usage = []
    big = [a for a in accounts if a[6] is None][:40]
    for a in big:
        level = rng.uniform(200, 20000)
        trend = -0.75 if rng.random() < 0.2 else 0.25  # a few accounts wind down
        for k in range(91):
            day = D(2024, 4, 1) + TD(days=k)
            if rng.random() < 0.04:
                continue  # no usage record that day
            wk = 0.35 if day.weekday() >= 5 else 1.0
            calls = int(level * wk * rng.uniform(0.6, 1.4) * (1 + trend * k / 91))
            usage.append([a[0], ds(day), calls, round(rng.uniform(1, 200), 3) if rng.random() > 0.05 else None])
    out["usage_daily"] = usage
    return out


# ---------------------------------------------------------------------------------------
# product_analytics: app/web event stream (no declared keys)
# ---------------------------------------------------------------------------------------

ANALYTICS_DDL = """
CREATE TABLE app_users (
  user_id INTEGER PRIMARY KEY,
  anonymous_id TEXT NOT NULL,
  first_seen_at TIMESTAMP NOT NULL,
  signup_at TIMESTAMP,
  country TEXT,
  platform TEXT NOT NULL,
  acquisition_source TEXT,
  plan TEXT NOT NULL,
  utc_offset_minutes INTEGER NOT NULL
);
CREATE TABLE events (
  event_id INTEGER PRIMARY KEY,
  anonymous_id TEXT NOT NULL,
  user_id INTEGER,
  event_name TEXT NOT NULL,
  event_ts TIMESTAMP NOT NULL,
  client_ts TEXT,
  platform TEXT NOT NULL,
  app_version TEXT,
  page_path TEXT,
  revenue NUMERIC(10,2),
  properties TEXT
);
CREATE TABLE experiments (
  experiment_id INTEGER PRIMARY KEY,
  experiment_key TEXT NOT NULL,
  description TEXT,
  started_on DATE NOT NULL,
  ended_on DATE
);
CREATE TABLE experiment_assignments (
  experiment_id INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  variant TEXT NOT NULL,
  assigned_at TIMESTAMP NOT NULL,
  PRIMARY KEY (experiment_id, user_id)
);
CREATE TABLE push_notifications (
  notification_id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL,
  campaign TEXT NOT NULL,
  sent_at TIMESTAMP NOT NULL,
  opened_at TIMESTAMP,
  deep_link TEXT
);
"""


def gen_analytics(rng):
    out = {}
    offsets = {"US": [-300, -420, -360, -480], "GB": [60], "DE": [120], "FR": [120], "IN": [330], "JP": [540], "BR": [-180], "CA": [-240, -420], "AU": [600]}
    users = []
    for uid in range(1, 1401):
        country = pick(rng, ["US", "GB", "DE", "FR", "IN", "JP", "BR", "CA", "AU", None], [38, 10, 9, 6, 12, 5, 6, 6, 4, 4])
        platform = pick(rng, ["ios", "android", "web"], [40, 35, 25])
        first = rand_time_on(rng, seasonal_date(rng, D(2024, 1, 1), D(2024, 6, 20), [1, .8, .9, .9, 1, .95, 1, 1, 1, 1, 1, 1]), EVENING_HOURS)
        signup = first + TD(minutes=int(rng.expovariate(1 / 300))) if rng.random() < 0.55 else None
        if signup is not None and signup.date() > ANCHOR:
            signup = None
        source = pick(rng, ["organic", "google_ads", "meta_ads", "referral", "tiktok", None], [35, 20, 18, 10, 7, 10])
        plan = "pro" if signup is not None and rng.random() < 0.18 else "free"
        off = pick(rng, offsets[country]) if country else 0
        users.append([uid, f"anon-{rng.getrandbits(40):010x}", ts(first), ts(signup), country, platform, source, plan, off])
    out["app_users"] = users
    items = list(range(1001, 1121))
    iw = zipf_weights(len(items), 1.0)
    queries = ["running shoes", "rain jacket", "headphones", "gift ideas", "yoga mat", "desk lamp", "backpack", "sale"]
    events = []
    eid = 0
    for u in users:
        uid, anon, first, signup, country, platform, source, plan, off = u
        t = T.fromisoformat(first)
        signup_t = T.fromisoformat(signup) if signup else None
        engaged = rng.random()
        n_sessions = 1 + int(rng.expovariate(1 / (1.0 + 4.5 * engaged)))
        version = pick(rng, ["5.2.0", "5.3.1", "5.4.0"], [2, 3, 5]) if platform != "web" else None
        for s in range(n_sessions):
            if t.date() > ANCHOR or len(events) >= 19000:
                break
            cur = t
            seq = ["app_open" if platform != "web" else "page_view"]
            if rng.random() < 0.35:
                seq.append("search")
            nviews = pick(rng, [0, 1, 2, 3, 4], [15, 35, 25, 15, 10])
            seq += ["view_item"] * nviews
            if nviews and rng.random() < 0.32:
                seq.append("add_to_cart")
                if rng.random() < 0.55:
                    seq.append("begin_checkout")
                    if rng.random() < 0.62:
                        seq.append("purchase")
            if rng.random() < 0.05:
                seq.append("share")
            if signup_t is not None and s == 0:
                seq.insert(1, "sign_up")
            for name in seq:
                eid += 1
                logged_in = signup_t is not None and cur >= signup_t
                if name == "sign_up":
                    cur = max(cur, signup_t)
                    logged_in = True
                item = rng.choices(items, iw)[0]
                props = None
                revenue = None
                path = None
                if name == "view_item":
                    props = json.dumps({"item_id": item, "list": pick(rng, ["home", "search", "category", "recommended"])})
                    path = f"/p/{item}" if platform == "web" else None
                elif name == "search":
                    props = json.dumps({"query": pick(rng, queries)})
                    path = "/search" if platform == "web" else None
                elif name == "purchase":
                    revenue = money(pick(rng, [19.99, 29.99, 49.99, 79.99, 120.0, 15.5]) * pick(rng, [1, 1, 1, 2, 3]))
                    props = json.dumps({"currency": "USD", "items": pick(rng, [1, 1, 2, 3])})
                    path = "/checkout/complete" if platform == "web" else None
                elif name == "page_view":
                    path = pick(rng, ["/", "/", "/sale", "/new-in", "/blog/summer-guide"])
                elif name in ("add_to_cart", "begin_checkout"):
                    path = "/cart" if platform == "web" else None
                client = local_with_offset(cur + TD(seconds=rng.randint(-3, 3)), off) if rng.random() > 0.03 else None
                events.append([eid, anon, uid if logged_in else None, name, ts(cur), client, platform, version, path, revenue, props])
                cur += TD(seconds=int(rng.expovariate(1 / 70)) + 5)
            gap_days = rng.expovariate(1 / (3 + 20 * (1 - engaged)))
            t = cur + TD(days=gap_days, minutes=rng.randint(31, 600))
    events.sort(key=lambda e: (e[4], e[0]))
    out["events"] = [[i + 1] + e[1:] for i, e in enumerate(events)]
    out["experiments"] = [
        [1, "new_checkout_flow", "One-page checkout instead of three steps", "2024-02-01", "2024-03-15"],
        [2, "onboarding_tour_v2", "Shorter onboarding tour", "2024-03-01", "2024-04-30"],
        [3, "price_anchor_banner", None, "2024-04-15", None],
        [4, "dark_mode_default", "Dark mode on by default for new users", "2024-05-20", None],
    ]
    assigns = []
    for u in users:
        ft = T.fromisoformat(u[2])
        for e in out["experiments"]:
            s, en = D.fromisoformat(e[3]), (D.fromisoformat(e[4]) if e[4] else ANCHOR)
            if s <= ft.date() <= en and rng.random() < 0.9:
                assigns.append([e[0], u[0], pick(rng, ["control", "treatment"]), ts(ft + TD(seconds=rng.randint(1, 30)))])
    out["experiment_assignments"] = assigns
    notes = []
    nid = 0
    campaigns = ["weekly_digest", "cart_reminder", "price_drop", "new_arrivals", "win_back"]
    for u in users:
        if u[3] is None or u[5] == "web":
            continue
        k = rng.randint(0, 5)
        for _ in range(k):
            nid += 1
            c = pick(rng, campaigns, [40, 20, 15, 15, 10])
            st = rand_time_on(rng, rand_date(rng, T.fromisoformat(u[3]).date(), ANCHOR), [0] * 8 + [3, 4, 4, 3, 3, 3, 3, 3, 4, 5, 6, 6, 4, 2, 0, 0])
            op = st + TD(minutes=int(rng.expovariate(1 / 90)) + 1) if rng.random() < {"cart_reminder": 0.28, "price_drop": 0.2}.get(c, 0.1) else None
            if op is not None and op.date() > ANCHOR:
                op = None
            notes.append([nid, u[0], c, ts(st), ts(op), f"app://{c.replace('_', '-')}" if rng.random() > 0.2 else None])
    notes.sort(key=lambda n: (n[3], n[1]))
    out["push_notifications"] = [[i + 1] + n[1:] for i, n in enumerate(notes)]
    return out


# ---------------------------------------------------------------------------------------
# helpdesk: Zendesk-like support desk (no declared keys; a table named groups)
# ---------------------------------------------------------------------------------------

HELPDESK_DDL = """
CREATE TABLE organizations (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  domain TEXT,
  tier TEXT,
  created_at TIMESTAMP NOT NULL
);
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT,
  role TEXT NOT NULL,
  organization_id INTEGER,
  time_zone TEXT,
  created_at TIMESTAMP NOT NULL,
  suspended BOOLEAN NOT NULL
);
CREATE TABLE groups (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  is_deleted BOOLEAN NOT NULL
);
CREATE TABLE tickets (
  id INTEGER PRIMARY KEY,
  subject TEXT NOT NULL,
  description TEXT,
  status TEXT NOT NULL,
  priority TEXT,
  type TEXT,
  channel TEXT NOT NULL,
  requester_id INTEGER NOT NULL,
  assignee_id INTEGER,
  group_id INTEGER,
  organization_id INTEGER,
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  first_reply_at TIMESTAMP,
  solved_at TIMESTAMP,
  due_at TIMESTAMP
);
CREATE TABLE ticket_comments (
  id INTEGER PRIMARY KEY,
  ticket_id INTEGER NOT NULL,
  author_id INTEGER NOT NULL,
  is_public BOOLEAN NOT NULL,
  body TEXT NOT NULL,
  created_at TIMESTAMP NOT NULL
);
CREATE TABLE ticket_tags (
  ticket_id INTEGER NOT NULL,
  tag TEXT NOT NULL
);
CREATE TABLE satisfaction_ratings (
  id INTEGER PRIMARY KEY,
  ticket_id INTEGER NOT NULL,
  score TEXT NOT NULL,
  comment TEXT,
  created_at TIMESTAMP NOT NULL
);
"""


def gen_helpdesk(rng):
    out = {}
    orgs = []
    words = ["Northwind", "Globex", "Initech", "Umbrella", "Stark", "Wayne", "Tyrell", "Soylent", "Cyberdyne", "Hooli",
             "Vandelay", "Wonka", "Gringotts", "Oscorp", "Pied Piper", "Dunder", "Prestige", "Monarch", "Aperture", "Massive"]
    for i in range(1, 151):
        n = f"{pick(rng, words)} {pick(rng, ['Inc', 'LLC', 'GmbH', 'Ltd', 'Group', 'Co'])}"
        orgs.append([i, n, n.split()[0].lower().replace(' ', '') + f"{i}.test" if rng.random() > 0.1 else None,
                     pick(rng, ["enterprise", "business", "starter", None], [15, 35, 35, 15]), ts(rand_time_on(rng, rand_date(rng, D(2020, 1, 1), D(2023, 12, 31))))])
    out["organizations"] = orgs
    zones = ["America/New_York", "America/Los_Angeles", "Europe/London", "Europe/Berlin", "Asia/Tokyo", "Australia/Sydney", None]
    users = []
    for i in range(1, 1501):
        f, l = person(rng)
        if i <= 40:
            role = "agent"
        elif i <= 43:
            role = "admin"
        else:
            role = "end-user"
        org = rng.randint(1, 150) if role == "end-user" and rng.random() < 0.8 else None
        users.append([i, f"{f} {l}", email_of(f, l, i, "support.test" if role != "end-user" else "customer.test") if rng.random() > 0.03 else None,
                      role, org, pick(rng, zones, [25, 15, 20, 15, 8, 7, 10]), ts(rand_time_on(rng, rand_date(rng, D(2021, 1, 1), D(2024, 5, 1)))), 1 if rng.random() < 0.02 else 0])
    users[57][1] = users[12][1]
    out["users"] = users
    out["groups"] = [[1, "Tier 1", 0], [2, "Tier 2", 0], [3, "Billing", 0], [4, "Technical", 0], [5, "Onboarding", 0], [6, "Legacy Escalations", 1]]
    agent_group = {a: (1 if a <= 16 else 2 if a <= 24 else 3 if a <= 30 else 4 if a <= 37 else 5) for a in range(1, 41)}
    subjects = {
        "billing": ["Charged twice this month", "Refund request", "Invoice address wrong", "Cannot update credit card", "Question about my bill"],
        "login": ["Cannot log in", "Password reset email never arrives", "Locked out after 2FA change", "SSO login fails"],
        "bug": ["Export to CSV is broken", "Dashboard shows wrong totals", "App crashes on startup", "Error 500 when saving", "Sync stuck at 99%"],
        "feature_request": ["Please add dark mode", "Feature request: bulk edit", "Can you support SAML?", "Need an API for reports"],
        "api": ["API rate limit too low", "Webhook not firing", "API returns 401 with valid token"],
        "onboarding": ["How do I invite my team?", "Help setting up integrations", "Migrating data from old tool"],
    }
    topics = list(subjects.keys())
    tickets, comments, tags, ratings = [], [], [], []
    cid = 0
    end_users = [u for u in users if u[3] == "end-user"]
    agent_load = zipf_weights(40, 0.6)
    tid = 0
    day = D(2023, 7, 1)
    while day <= D(2024, 6, 30):
        base = 9.5 if day.weekday() < 5 else 3
        if day.month in (1, 9):
            base *= 1.3
        if D(2024, 3, 4) <= day <= D(2024, 3, 8):
            base *= 3  # incident week
        n = int(rng.gauss(base, 2.0))
        for _ in range(max(n, 0)):
            tid += 1
            topic = pick(rng, topics, [22, 18, 25, 10, 10, 15])
            if D(2024, 3, 4) <= day <= D(2024, 3, 8) and rng.random() < 0.6:
                topic = "bug"
            req = pick(rng, end_users)
            created = rand_time_on(rng, day, BUSINESS_HOURS)
            channel = pick(rng, ["email", "web", "chat", "phone"], [40, 30, 22, 8])
            priority = pick(rng, ["low", "normal", "high", "urgent", None], [15, 45, 18, 5, 17])
            ttype = pick(rng, ["question", "incident", "problem", "task", None], [40, 30, 8, 7, 15])
            if topic == "bug" and rng.random() < 0.5:
                ttype = "incident"
            grp = {"billing": 3, "login": 1, "bug": 4, "feature_request": 2, "api": 4, "onboarding": 5}[topic]
            if rng.random() < 0.15:
                grp = pick(rng, [1, 2])
            candidates = [a for a in range(1, 41) if agent_group[a] == grp]
            age = (ANCHOR - day).days
            unassigned = (age < 2 and rng.random() < 0.5) or rng.random() < 0.04
            assignee = None if unassigned else rng.choices(candidates, [agent_load[a - 1] for a in candidates])[0]
            first_reply = None
            if assignee is not None and rng.random() > 0.03:
                mult = {"urgent": 0.2, "high": 0.5, "normal": 1, "low": 2}.get(priority, 1.2)
                delay_h = rng.expovariate(1 / (6 * mult))
                if created.weekday() >= 4 and created.hour > 15:
                    delay_h += rng.choice([0, 48, 60])
                first_reply = created + TD(hours=delay_h, minutes=rng.randint(1, 20))
            if first_reply is not None and first_reply.date() > ANCHOR:
                first_reply = None
            solved = None
            if first_reply is not None:
                solve_h = rng.expovariate(1 / (30 if topic != "bug" else 80))
                solved = first_reply + TD(hours=solve_h)
                if solved.date() > ANCHOR or rng.random() < 0.05:
                    solved = None
            if solved is not None:
                status = "closed" if (ANCHOR - solved.date()).days > 4 else "solved"
            elif first_reply is not None:
                status = pick(rng, ["open", "pending", "hold"], [5, 4, 1])
            else:
                status = "new"
            due = created + TD(days=3) if ttype == "task" else None
            updated = max([x for x in [created, first_reply, solved] if x is not None]) + TD(minutes=rng.randint(0, 300))
            if status == "closed":
                updated = solved + TD(days=4, minutes=rng.randint(0, 60))
            if updated.date() > ANCHOR:
                updated = T(2024, 6, 30, 23, 0, 0)
            subj = pick(rng, subjects[topic])
            if rng.random() < 0.15:
                subj = ("RE: " if rng.random() < 0.5 else "URGENT: ") + subj
            desc = f"Hi, {subj.lower()}. " + pick(rng, ["Please help.", "This is blocking our team.", "Thanks in advance!", "Order #" + str(rng.randint(10000, 99999)) + " affected.", ""]) if rng.random() > 0.02 else None
            org = req[4]
            tickets.append([tid, subj, desc, status, priority, ttype, channel, req[0], assignee, grp if assignee is not None or rng.random() < 0.5 else None, org,
                            ts(created), ts(updated), ts(first_reply), ts(solved), ts(due)])
            cid += 1
            comments.append([cid, tid, req[0], 1, desc or subj, ts(created)])
            t = first_reply
            k = 0
            while t is not None and k < 6 and len(comments) < 13500:
                k += 1
                author = assignee if k % 2 == 1 else req[0]
                public = 1
                if author == assignee and rng.random() < 0.2:
                    public = 0
                cid += 1
                comments.append([cid, tid, author, public, pick(rng, ["Thanks for reaching out, looking into this now.", "Could you send a screenshot?",
                                                                   "We have escalated this to engineering.", "That worked, thank you!", "Internal: known issue, see incident doc.",
                                                                   "Any update on this?", "Closing as resolved."]), ts(t)])
                t = t + TD(hours=rng.expovariate(1 / 10))
                if solved is not None and t > solved:
                    break
                if t.date() > ANCHOR:
                    break
            tag_pool = [topic] + (["urgent"] if priority == "urgent" else []) + (["vip"] if org is not None and orgs[org - 1][3] == "enterprise" else [])
            if topic == "login" and rng.random() < 0.4:
                tag_pool.append("password_reset")
            if topic == "billing" and "efund" in subj:
                tag_pool.append("refund")
            if rng.random() < 0.1:
                tag_pool.append(pick(rng, ["mobile", "chrome", "windows", "churn_risk"]))
            if rng.random() < 0.93:
                for tg in sorted(dict.fromkeys(tag_pool)):
                    tags.append([tid, tg])
            if solved is not None and rng.random() < 0.5:
                score = pick(rng, ["good", "bad", "offered"], [62, 18, 20])
                comment = None
                if score != "offered" and rng.random() < 0.35:
                    comment = pick(rng, ["Quick and helpful", "Took way too long", "Great support!", "Problem not really solved", "thanks"])
                ratings.append([len(ratings) + 1, tid, score, comment, ts(solved + TD(hours=rng.randint(1, 72)))])
        day += TD(days=1)
    out["tickets"] = tickets
    out["ticket_comments"] = comments
    out["ticket_tags"] = tags
    out["satisfaction_ratings"] = ratings
    return out


# ---------------------------------------------------------------------------------------
# hr: people, org chart and payroll (declared foreign keys)
# ---------------------------------------------------------------------------------------

HR_DDL = """
CREATE TABLE departments (
  department_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  parent_department_id INTEGER REFERENCES departments(department_id),
  cost_center TEXT NOT NULL
);
CREATE TABLE locations (
  location_id INTEGER PRIMARY KEY,
  city TEXT NOT NULL,
  country TEXT NOT NULL,
  is_remote_hub BOOLEAN NOT NULL
);
CREATE TABLE employees (
  employee_id INTEGER PRIMARY KEY,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  work_email TEXT NOT NULL,
  department_id INTEGER NOT NULL REFERENCES departments(department_id),
  manager_id INTEGER REFERENCES employees(employee_id),
  location_id INTEGER REFERENCES locations(location_id),
  job_title TEXT NOT NULL,
  job_level INTEGER NOT NULL,
  employment_type TEXT NOT NULL,
  hire_date DATE NOT NULL,
  termination_date DATE,
  termination_reason TEXT,
  birth_date DATE,
  gender TEXT
);
CREATE TABLE salary_history (
  employee_id INTEGER NOT NULL REFERENCES employees(employee_id),
  effective_from DATE NOT NULL,
  effective_to DATE,
  annual_salary NUMERIC(12,2) NOT NULL,
  currency TEXT NOT NULL,
  change_reason TEXT,
  PRIMARY KEY (employee_id, effective_from)
);
CREATE TABLE payroll_runs (
  run_id INTEGER PRIMARY KEY,
  period_start DATE NOT NULL,
  period_end DATE NOT NULL,
  pay_date DATE NOT NULL,
  run_type TEXT NOT NULL
);
CREATE TABLE payslips (
  payslip_id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES payroll_runs(run_id),
  employee_id INTEGER NOT NULL REFERENCES employees(employee_id),
  currency TEXT NOT NULL,
  gross_pay NUMERIC(10,2) NOT NULL,
  bonus NUMERIC(10,2),
  overtime_hours REAL,
  tax_withheld NUMERIC(10,2) NOT NULL,
  net_pay NUMERIC(10,2) NOT NULL
);
CREATE TABLE time_off_requests (
  request_id INTEGER PRIMARY KEY,
  employee_id INTEGER NOT NULL REFERENCES employees(employee_id),
  leave_type TEXT NOT NULL,
  start_date DATE NOT NULL,
  end_date DATE NOT NULL,
  status TEXT NOT NULL,
  approved_by INTEGER REFERENCES employees(employee_id),
  requested_at TIMESTAMP NOT NULL,
  note TEXT
);
CREATE TABLE performance_reviews (
  review_id INTEGER PRIMARY KEY,
  employee_id INTEGER NOT NULL REFERENCES employees(employee_id),
  reviewer_id INTEGER REFERENCES employees(employee_id),
  review_year INTEGER NOT NULL,
  rating INTEGER,
  promoted BOOLEAN NOT NULL,
  comments TEXT
);
"""


def gen_hr(rng):
    out = {}
    depts = [
        (1, "Executive", None, "CC-100"), (2, "Engineering", 1, "CC-200"), (3, "Platform", 2, "CC-210"),
        (4, "Data", 2, "CC-220"), (5, "Mobile", 2, "CC-230"), (6, "Sales", 1, "CC-300"),
        (7, "EMEA Sales", 6, "CC-310"), (8, "North America Sales", 6, "CC-320"), (9, "Finance", 1, "CC-400"),
        (10, "People", 1, "CC-500"), (11, "Marketing", 1, "CC-600"), (12, "Customer Success", 1, "CC-700"),
        (13, "Support", 12, "CC-710"), (14, "Operations", 1, "CC-800"), (15, "Data Platform", 4, "CC-221"),
    ]
    out["departments"] = depts
    out["locations"] = [[1, "San Francisco", "US", 0], [2, "New York", "US", 0], [3, "London", "GB", 0], [4, "Berlin", "DE", 0],
                        [5, "Lisbon", "PT", 1], [6, "Toronto", "CA", 0], [7, "Remote - Americas", "US", 1]]
    titles = {1: ["Chief Executive Officer", "Chief of Staff"], 2: ["VP Engineering"], 3: ["Software Engineer", "Senior Software Engineer", "Staff Engineer", "Site Reliability Engineer"],
              4: ["Data Analyst", "Data Scientist", "Analytics Engineer"], 5: ["iOS Engineer", "Android Engineer"], 6: ["VP Sales"],
              7: ["Account Executive", "Sales Development Rep"], 8: ["Account Executive", "Sales Development Rep", "Sales Engineer"],
              9: ["Accountant", "Financial Analyst", "Controller"], 10: ["Recruiter", "People Partner"], 11: ["Marketing Manager", "Content Writer", "Growth Marketer"],
              12: ["Customer Success Manager"], 13: ["Support Specialist", "Support Lead"], 14: ["Operations Analyst", "Office Manager"], 15: ["Data Engineer", "Senior Data Engineer"]}
    emps = []
    heads = {}

    def add(dept, manager, level, title, hire, forced_active=False):
        eid = len(emps) + 1
        f, l = person(rng)
        term = None
        reason = None
        if not forced_active and rng.random() < 0.22:
            term = hire + TD(days=int(rng.expovariate(1 / 600)) + 60)
            if term > D(2024, 6, 28):
                term = None
            else:
                reason = pick(rng, ["resigned", "resigned", "laid_off", "terminated", "retired", None], [40, 20, 15, 8, 4, 13])
        loc = pick(rng, [1, 2, 3, 4, 5, 6, 7], [25, 20, 15, 12, 8, 8, 12]) if rng.random() > 0.03 else None
        etype = pick(rng, ["full_time", "part_time", "contractor"], [85, 6, 9]) if level < 5 else "full_time"
        birth = rand_date(rng, D(1962, 1, 1), D(2001, 12, 31)) if rng.random() > 0.05 else None
        emps.append([eid, f, l, email_of(f, l, eid, "corp.test"), dept, manager, loc, title, level, etype, ds(hire), ds(term), reason, ds(birth),
                     pick(rng, ["F", "M", "X", None], [45, 45, 3, 7])])
        return eid

    ceo = add(1, None, 8, "Chief Executive Officer", D(2012, 3, 1), True)
    add(1, ceo, 5, "Chief of Staff", D(2016, 5, 9), True)
    for d in [2, 6, 9, 10, 11, 12, 14]:
        heads[d] = add(d, ceo, 7, {2: "VP Engineering", 6: "VP Sales", 9: "CFO", 10: "VP People", 11: "VP Marketing", 12: "VP Customer Success", 14: "VP Operations"}[d], rand_date(rng, D(2012, 6, 1), D(2018, 1, 1)), True)
    for d, parent in [(3, 2), (4, 2), (5, 2), (7, 6), (8, 6), (13, 12), (15, 4)]:
        heads[d] = add(d, heads[parent], 6, "Director, " + [x for x in depts if x[0] == d][0][1], rand_date(rng, D(2014, 1, 1), D(2020, 1, 1)), True)
    sizes = {3: 60, 4: 25, 5: 22, 7: 35, 8: 45, 9: 18, 10: 14, 11: 26, 12: 22, 13: 40, 14: 16, 15: 20}
    leads = {}
    for d, n in sizes.items():
        leads[d] = []
        for k in range(max(1, n // 9)):
            leads[d].append(add(d, heads[d], 5, "Manager, " + [x for x in depts if x[0] == d][0][1], rand_date(rng, D(2015, 1, 1), D(2022, 6, 1)), k == 0))
        for _ in range(n - len(leads[d])):
            mgr = pick(rng, leads[d])
            hire = seasonal_date(rng, D(2016, 1, 1), D(2024, 6, 15), [1, .8, .9, .9, .8, .7, .6, .8, 1, .9, .7, .4])
            if rng.random() < 0.35:
                hire = rand_date(rng, D(2021, 3, 1), D(2022, 9, 30))  # hiring wave
            add(d, mgr, pick(rng, [1, 2, 3, 4], [25, 40, 25, 10]), pick(rng, titles[d]), hire)
    out["employees"] = emps
    salaries = []
    base_by_level = {1: 52000, 2: 70000, 3: 92000, 4: 118000, 5: 135000, 6: 170000, 7: 220000, 8: 310000}
    current_salary = {}
    for e in emps:
        eid, level = e[0], e[8]
        cur = D.fromisoformat(e[10])
        end = D.fromisoformat(e[11]) if e[11] else None
        sal = base_by_level[level] * rng.uniform(0.85, 1.15)
        if e[9] == "part_time":
            sal *= 0.55
        if e[6] in (3, 4, 5):
            sal *= 0.8
        currency = {3: "GBP", 4: "EUR", 5: "EUR", 6: "CAD"}.get(e[6], "USD")
        reason = "hire" if cur >= D(2019, 1, 1) else "system_migration"
        start = max(cur, D(2019, 1, 1))
        periods = []
        d0 = start
        while True:
            nxt = D(d0.year, 4, 1) if d0 < D(d0.year, 4, 1) else D(d0.year + 1, 4, 1)
            periods.append((d0, sal, reason))
            if nxt > D(2024, 6, 30) or (end is not None and nxt > end):
                break
            if rng.random() < 0.15:
                d0 = nxt
                continue
            sal = sal * (1 + pick(rng, [0.02, 0.03, 0.04, 0.06, 0.12], [20, 35, 25, 12, 8]))
            reason = "annual_review" if rng.random() > 0.1 else "promotion"
            d0 = nxt
        for i, (f, s, r) in enumerate(periods):
            to = periods[i + 1][0] - TD(days=1) if i + 1 < len(periods) else end
            salaries.append([eid, ds(f), ds(to), money(round(s, -2)), currency, r if rng.random() > 0.05 else None])
        current_salary[eid] = periods
    out["salary_history"] = salaries
    runs = []
    d = D(2023, 1, 1)
    rid = 0
    while d <= D(2024, 6, 1):
        rid += 1
        pend = add_months(d, 1) - TD(days=1)
        pay = pend
        while pay.weekday() >= 5:
            pay -= TD(days=1)  # paid on the last working day
        runs.append([rid, ds(d), ds(pend), ds(pay), "regular"])
        if d.month == 12:
            rid += 1
            runs.append([rid, ds(d), ds(pend), ds(D(d.year, 12, 15)), "bonus"])
        d = add_months(d, 1)
    out["payroll_runs"] = runs
    slips = []
    sid = 0
    for r in runs:
        ps, pe = D.fromisoformat(r[1]), D.fromisoformat(r[2])
        for e in emps:
            hire = D.fromisoformat(e[10])
            term = D.fromisoformat(e[11]) if e[11] else None
            if hire > pe or (term is not None and term < ps) or e[9] == "contractor":
                continue
            sal = None
            currency = [x for x in salaries if x[0] == e[0]][0][4]
            for f, s, _ in current_salary[e[0]]:
                if f <= pe:
                    sal = s
            if sal is None:
                continue
            if r[4] == "bonus":
                if rng.random() < 0.6:
                    continue
                gross = 0.0
                bonus = money(sal * pick(rng, [0.03, 0.05, 0.08, 0.1, 0.15]))
                ot = None
            else:
                frac = 1.0
                if hire > ps:
                    frac = ((pe - hire).days + 1) / ((pe - ps).days + 1)
                if term is not None and term < pe:
                    frac = ((term - ps).days + 1) / ((pe - ps).days + 1)
                gross = money(sal / 12 * frac)
                ot = round(rng.choice([0.5, 1, 2, 4, 6, 8, 12]), 1) if e[4] in (13, 14) and rng.random() < 0.4 else None
                bonus = money(rng.choice([250, 500, 1000])) if rng.random() < 0.03 else None
                if ot:
                    gross = money(gross + ot * sal / 2080 * 1.5)
            taxable = gross + (bonus or 0)
            tax = money(taxable * (0.22 if sal < 90000 else 0.3 if sal < 160000 else 0.37))
            sid += 1
            slips.append([sid, r[0], e[0], currency, gross, bonus, ot, tax, money(taxable - tax)])
    out["payslips"] = slips
    reqs = []
    qid = 0
    for e in emps:
        hire = D.fromisoformat(e[10])
        term = D.fromisoformat(e[11]) if e[11] else D(2024, 12, 31)
        for _ in range(rng.randint(0, 6)):
            start = seasonal_date(rng, max(hire, D(2023, 1, 1)), D(2024, 9, 30), [.5, .4, .6, .6, .7, .9, 1, 1, .6, .6, .6, 1])
            if start > term or start < hire:
                continue
            lt = pick(rng, ["vacation", "sick", "parental", "unpaid", "bereavement"], [70, 20, 3, 5, 2])
            length = {"vacation": rng.randint(1, 12), "sick": rng.randint(1, 4), "parental": rng.randint(30, 120), "unpaid": rng.randint(1, 10), "bereavement": rng.randint(2, 5)}[lt]
            end = start + TD(days=length - 1)
            requested = T.combine(start - TD(days=rng.randint(0 if lt == "sick" else 5, 60 if lt != "sick" else 1)), dt.time(rng.randint(8, 18), rng.randint(0, 59)))
            if requested.date() > ANCHOR:
                continue
            status = pick(rng, ["approved", "pending", "rejected", "cancelled"], [78, 8, 6, 8])
            if start < D(2024, 6, 1) and status == "pending":
                status = "approved"
            approver = e[5] if status in ("approved", "rejected") and rng.random() > 0.05 else None
            qid += 1
            reqs.append([qid, e[0], lt, ds(start), ds(end), status, approver, ts(requested), pick(rng, ["Family trip", "Doctor appointment", "Moving house", None, None, None])])
    out["time_off_requests"] = reqs
    reviews = []
    vid = 0
    for year in (2022, 2023):
        for e in emps:
            hire = D.fromisoformat(e[10])
            term = D.fromisoformat(e[11]) if e[11] else None
            if hire > D(year, 9, 30) or (term is not None and term < D(year, 12, 31)) or e[9] == "contractor":
                continue
            vid += 1
            rating = pick(rng, [1, 2, 3, 4, 5, None], [3, 10, 48, 27, 8, 4])
            reviews.append([vid, e[0], e[5], year, rating, 1 if rating and rating >= 4 and rng.random() < 0.3 else 0,
                            pick(rng, ["Strong delivery this year.", "Needs to improve communication.", "Consistently exceeds expectations.", None, None])])
    out["performance_reviews"] = reviews
    return out


# ---------------------------------------------------------------------------------------
# logistics: parcels and carrier tracking (no declared keys; table names mix singular
# and plural, as the schema grew over time)
# ---------------------------------------------------------------------------------------

LOGISTICS_DDL = """
CREATE TABLE carriers (
  carrier_id INTEGER PRIMARY KEY,
  carrier_name TEXT NOT NULL,
  scac TEXT,
  is_active BOOLEAN NOT NULL
);
CREATE TABLE warehouse (
  warehouse_id INTEGER PRIMARY KEY,
  code TEXT NOT NULL,
  city TEXT NOT NULL,
  country TEXT NOT NULL,
  opened_on DATE NOT NULL,
  capacity_pallets INTEGER,
  utc_offset_minutes INTEGER NOT NULL
);
CREATE TABLE shipment (
  shipment_id INTEGER PRIMARY KEY,
  order_ref VARCHAR(20) NOT NULL,
  warehouse_id INTEGER NOT NULL,
  carrier_id INTEGER,
  service_level TEXT NOT NULL,
  destination_city TEXT NOT NULL,
  destination_country TEXT NOT NULL,
  destination_postcode TEXT,
  created_at TIMESTAMP NOT NULL,
  shipped_at TIMESTAMP,
  promised_date DATE NOT NULL,
  delivered_at TIMESTAMP,
  status TEXT NOT NULL,
  total_weight_kg REAL NOT NULL,
  declared_value NUMERIC(10,2),
  shipping_cost NUMERIC(10,2) NOT NULL,
  is_return BOOLEAN NOT NULL
);
CREATE TABLE parcel (
  parcel_id INTEGER PRIMARY KEY,
  shipment_id INTEGER NOT NULL,
  barcode TEXT NOT NULL,
  length_cm INTEGER,
  width_cm INTEGER,
  height_cm INTEGER,
  weight_kg REAL NOT NULL
);
CREATE TABLE tracking_events (
  event_id INTEGER PRIMARY KEY,
  shipment_id INTEGER NOT NULL,
  event_code TEXT NOT NULL,
  recorded_at TIMESTAMP NOT NULL,
  local_event_time TEXT,
  location TEXT,
  exception_reason TEXT
);
CREATE TABLE rate_cards (
  rate_card_id INTEGER PRIMARY KEY,
  carrier_id INTEGER NOT NULL,
  service_level TEXT NOT NULL,
  zone TEXT NOT NULL,
  price_per_kg NUMERIC(8,2) NOT NULL,
  min_charge NUMERIC(8,2) NOT NULL,
  valid_from DATE NOT NULL,
  valid_to DATE
);
"""


def gen_logistics(rng):
    out = {}
    carriers = [[1, "SwiftPost", "SWPT", 1], [2, "BlueLine Express", "BLXP", 1], [3, "Parcelo", None, 1], [4, "EuroFreight", "EUFR", 1],
                [5, "QuickShip Courier", "QSCR", 1], [6, "Northstar Logistics", "NSLG", 0], [7, "Parcelo Economy", None, 1], [8, "Local Courier Co", None, 1]]
    out["carriers"] = carriers
    whs = [[1, "RTM1", "Rotterdam", "NL", "2019-03-01", 12000, 120], [2, "LEJ1", "Leipzig", "DE", "2020-06-15", 9000, 120],
           [3, "MAD1", "Madrid", "ES", "2021-02-01", 6000, 120], [4, "EMA1", "East Midlands", "GB", "2019-09-01", 8000, 60],
           [5, "WAW1", "Warsaw", "PL", "2022-04-11", 5000, 120], [6, "DUB1", "Dublin", "IE", "2023-09-01", 2500, 60]]
    out["warehouse"] = whs
    dests = {"NL": ["Amsterdam", "Utrecht", "Rotterdam"], "DE": ["Berlin", "Munich", "Hamburg", "Cologne"], "FR": ["Paris", "Lyon", "Lille"],
             "ES": ["Madrid", "Barcelona", "Valencia"], "GB": ["London", "Manchester", "Leeds"], "PL": ["Warsaw", "Krakow"], "IE": ["Dublin", "Cork"],
             "IT": ["Milan", "Rome"], "BE": ["Brussels", "Antwerp"], "SE": ["Stockholm"]}
    zone_of = lambda wc, dc: "domestic" if wc == dc else ("eu" if dc != "GB" and wc != "GB" else "intl")
    rates = []
    rid = 0
    for c in carriers:
        for lvl in ["economy", "standard", "express"]:
            if c[0] in (7,) and lvl == "express":
                continue
            for z in ["domestic", "eu", "intl"]:
                base = {"economy": 0.9, "standard": 1.4, "express": 2.6}[lvl] * {"domestic": 1, "eu": 1.6, "intl": 2.3}[z] * rng.uniform(0.85, 1.2)
                rid += 1
                rates.append([rid, c[0], lvl, z, money(base), money(base * 3 + 2), "2023-01-01", "2023-12-31"])
                rid += 1
                rates.append([rid, c[0], lvl, z, money(base * 1.06), money(base * 3.2 + 2), "2024-01-01", None])
    out["rate_cards"] = rates
    ships, parcels, evs = [], [], []
    sid = pid = eid = 0
    carrier_w = {1: 30, 2: 18, 3: 20, 4: 10, 5: 8, 6: 0, 7: 9, 8: 5}
    delay_bias = {1: 0.08, 2: 0.05, 3: 0.18, 4: 0.12, 5: 0.03, 6: 0.3, 7: 0.25, 8: 0.1}
    day = D(2023, 10, 1)
    while day <= D(2024, 6, 30):
        base = 15 if day.weekday() < 5 else 4
        if day.month in (11, 12) and day.day < 24:
            base *= 1.6
        for _ in range(max(0, int(rng.gauss(base, 4)))):
            sid += 1
            wh = pick(rng, whs, [35, 25, 15, 15, 7, 3 if day >= D(2023, 9, 1) else 0])
            if D.fromisoformat(wh[4]) > day:
                wh = whs[0]
            dc = wh[3] if rng.random() < 0.45 else pick(rng, list(dests.keys()))
            city = pick(rng, dests[dc])
            lvl = pick(rng, ["economy", "standard", "express"], [25, 55, 20])
            carr = rng.choices([c[0] for c in carriers], [carrier_w[c[0]] if not (lvl == "express" and c[0] == 7) else 0 for c in carriers])[0]
            if day < D(2023, 11, 1) and rng.random() < 0.1:
                carr = 6
            created = rand_time_on(rng, day, BUSINESS_HOURS)
            transit = {"economy": 5, "standard": 3, "express": 1}[lvl] + (0 if dc == wh[3] else 2)
            promised = day + TD(days=transit + (1 if created.hour >= 15 else 0))
            nparcels = pick(rng, [1, 1, 1, 1, 2, 2, 3])
            weights = [round(rng.lognormvariate(0.6, 0.8), 2) for _ in range(nparcels)]
            total_w = round(sum(weights), 2)
            zone = zone_of(wh[3], dc)
            rate = [r for r in rates if r[1] == carr and r[2] == lvl and r[3] == zone and r[6] <= ds(day) and (r[7] is None or r[7] >= ds(day))]
            if not rate:
                rate = [r for r in rates if r[1] == 1 and r[2] == lvl and r[3] == zone and r[6] <= ds(day) and (r[7] is None or r[7] >= ds(day))]
            cost = money(max(rate[0][5], rate[0][4] * total_w))
            if rng.random() < 0.04:
                cost = money(cost + pick(rng, [1.5, 2.75, 4.0]))  # surcharges billed on top of the card
            age = (ANCHOR - day).days
            shipped = created + TD(hours=rng.uniform(2, 30)) if not (age < 1 and rng.random() < 0.6) else None
            if rng.random() < 0.01:
                shipped = None  # cancelled before pickup
            delivered = None
            status = "label_created" if shipped is None else "in_transit"
            exception = None
            late = rng.random() < delay_bias[carr] + (0.15 if day.month == 12 else 0)
            if shipped is not None:
                days_in = transit + (rng.randint(1, 6) if late else rng.choice([-1, 0, 0, 0]) if lvl != "express" else 0)
                arrive = T.combine(shipped.date() + TD(days=max(days_in, 1)), dt.time(rng.randint(8, 20), rng.randint(0, 59)))
                if rng.random() < 0.02:
                    status = "lost"
                    exception = "lost in network"
                elif rng.random() < 0.025:
                    status = "returned_to_sender"
                    exception = pick(rng, ["address not found", "refused by recipient"])
                elif arrive <= T(2024, 6, 30, 23, 59):
                    delivered = arrive
                    status = "delivered"
                if late and rng.random() < 0.4 and exception is None:
                    exception = pick(rng, ["weather delay", "customs hold", "address incomplete", "vehicle breakdown", "recipient not home"])
            if shipped is None and age > 3:
                status = "cancelled"
            is_return = 1 if rng.random() < 0.06 else 0
            postcode = f"{rng.randint(1000, 99999)}" if rng.random() > 0.08 else None
            value = money(rng.uniform(10, 800)) if rng.random() > 0.2 else None
            ships.append([sid, f"SO-{2023 if day.year == 2023 else 2024}-{sid:06d}", wh[0], carr if status != "cancelled" or rng.random() < 0.5 else None, lvl, city, dc, postcode,
                          ts(created), ts(shipped), ds(promised), ts(delivered), status, total_w, value, cost, is_return])
            for w in weights:
                pid += 1
                dims = [rng.randint(10, 80), rng.randint(10, 60), rng.randint(5, 50)] if rng.random() > 0.1 else [None, None, None]
                parcels.append([pid, sid, f"PK{rng.getrandbits(36):011d}", dims[0], dims[1], dims[2], w])
            # tracking events
            woff = wh[6]
            doff = {"GB": 60, "IE": 60}.get(dc, 120)
            if day < D(2024, 3, 31) and day >= D(2023, 10, 29):
                woff -= 60
                doff -= 60
            seq = [("LABEL_CREATED", created, woff, wh[2])]
            if shipped is not None:
                seq.append(("PICKED_UP", shipped, woff, wh[2]))
                hub_t = shipped + TD(hours=rng.uniform(5, 20))
                seq.append(("ARRIVED_AT_HUB", hub_t, woff, pick(rng, ["Venlo hub", "Kassel hub", "Lyon hub", "Daventry hub", None])))
                if exception is not None:
                    seq.append(("EXCEPTION", hub_t + TD(hours=rng.uniform(3, 30)), doff, None))
                if delivered is not None:
                    seq.append(("OUT_FOR_DELIVERY", delivered - TD(hours=rng.uniform(1, 6)), doff, city))
                    seq.append(("DELIVERED", delivered, doff, city))
                elif status == "returned_to_sender":
                    seq.append(("RETURNED", hub_t + TD(days=rng.randint(3, 8)), woff, wh[2]))
            for code, t, off, loc in seq:
                if t > T(2024, 6, 30, 23, 59, 59):
                    continue
                eid += 1
                local = local_with_offset(t, off) if rng.random() > 0.04 else None
                evs.append([eid, sid, code, ts(t), local, loc, exception if code == "EXCEPTION" else None])
        day += TD(days=1)
    out["shipment"] = ships
    out["parcel"] = parcels
    out["tracking_events"] = evs
    return out


# ---------------------------------------------------------------------------------------
# flights: one year of departures from three New York airports (nycflights-like shape)
# ---------------------------------------------------------------------------------------

FLIGHTS_DDL = """
CREATE TABLE airlines (
  carrier TEXT PRIMARY KEY,
  name TEXT NOT NULL
);
CREATE TABLE airports (
  faa TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  city TEXT,
  state TEXT,
  lat REAL NOT NULL,
  lon REAL NOT NULL,
  alt INTEGER,
  tz INTEGER,
  tzone TEXT
);
CREATE TABLE planes (
  tailnum TEXT PRIMARY KEY,
  year INTEGER,
  type TEXT,
  manufacturer TEXT,
  model TEXT,
  engines INTEGER,
  seats INTEGER,
  engine TEXT
);
CREATE TABLE flights (
  id INTEGER PRIMARY KEY,
  year INTEGER NOT NULL,
  month INTEGER NOT NULL,
  day INTEGER NOT NULL,
  dep_time INTEGER,
  sched_dep_time INTEGER NOT NULL,
  dep_delay REAL,
  arr_time INTEGER,
  sched_arr_time INTEGER NOT NULL,
  arr_delay REAL,
  carrier TEXT NOT NULL,
  flight INTEGER NOT NULL,
  tailnum TEXT,
  origin TEXT NOT NULL,
  dest TEXT NOT NULL,
  air_time REAL,
  distance INTEGER NOT NULL,
  hour INTEGER NOT NULL,
  minute INTEGER NOT NULL,
  time_hour TIMESTAMP NOT NULL,
  cancelled BOOLEAN NOT NULL
);
CREATE TABLE weather (
  origin TEXT NOT NULL,
  time_hour TIMESTAMP NOT NULL,
  temp REAL,
  dewp REAL,
  humid REAL,
  wind_dir INTEGER,
  wind_speed REAL,
  wind_gust REAL,
  precip REAL NOT NULL,
  pressure REAL,
  visib REAL NOT NULL
);
"""


def gen_flights(rng):
    out = {}
    airlines = [["AA", "American Airlines Inc."], ["B6", "JetBlue Airways"], ["DL", "Delta Air Lines Inc."], ["UA", "United Air Lines Inc."],
                ["WN", "Southwest Airlines Co."], ["AS", "Alaska Airlines Inc."], ["NK", "Spirit Air Lines"], ["F9", "Frontier Airlines Inc."],
                ["HA", "Hawaiian Airlines Inc."], ["9E", "Endeavor Air Inc."], ["MQ", "Envoy Air"], ["YX", "Republic Airline"], ["OO", "SkyWest Airlines Inc."]]
    out["airlines"] = airlines
    # (faa, name, city, state, lat, lon, alt, tz, tzone, distance from NYC area, weight)
    ap = [
        ("EWR", "Newark Liberty Intl", "Newark", "NJ", 40.6925, -74.1687, 18, -5, "America/New_York", 0, 0),
        ("JFK", "John F Kennedy Intl", "New York", "NY", 40.6398, -73.7789, 13, -5, "America/New_York", 0, 0),
        ("LGA", "La Guardia", "New York", "NY", 40.7772, -73.8726, 22, -5, "America/New_York", 0, 0),
        ("ATL", "Hartsfield Jackson Atlanta Intl", "Atlanta", "GA", 33.6367, -84.4281, 1026, -5, "America/New_York", 760, 10),
        ("ORD", "Chicago Ohare Intl", "Chicago", "IL", 41.9786, -87.9048, 668, -6, "America/Chicago", 733, 10),
        ("LAX", "Los Angeles Intl", "Los Angeles", "CA", 33.9425, -118.4081, 126, -8, "America/Los_Angeles", 2475, 9),
        ("SFO", "San Francisco Intl", "San Francisco", "CA", 37.619, -122.3749, 13, -8, "America/Los_Angeles", 2586, 6),
        ("BOS", "General Edward Lawrence Logan Intl", "Boston", "MA", 42.3643, -71.0052, 19, -5, "America/New_York", 187, 7),
        ("MCO", "Orlando Intl", "Orlando", "FL", 28.4294, -81.309, 96, -5, "America/New_York", 950, 8),
        ("FLL", "Fort Lauderdale Hollywood Intl", "Fort Lauderdale", "FL", 26.0726, -80.1527, 9, -5, "America/New_York", 1069, 6),
        ("MIA", "Miami Intl", "Miami", "FL", 25.7932, -80.2906, 8, -5, "America/New_York", 1089, 6),
        ("CLT", "Charlotte Douglas Intl", "Charlotte", "NC", 35.214, -80.9431, 748, -5, "America/New_York", 541, 7),
        ("DCA", "Ronald Reagan Washington Natl", "Washington", "DC", 38.8521, -77.0377, 15, -5, "America/New_York", 214, 5),
        ("IAD", "Washington Dulles Intl", "Dulles", "VA", 38.9445, -77.4558, 313, -5, "America/New_York", 228, 3),
        ("DFW", "Dallas Fort Worth Intl", "Dallas", "TX", 32.8968, -97.038, 607, -6, "America/Chicago", 1372, 5),
        ("DEN", "Denver Intl", "Denver", "CO", 39.8617, -104.6731, 5431, -7, "America/Denver", 1620, 4),
        ("SEA", "Seattle Tacoma Intl", "Seattle", "WA", 47.449, -122.3093, 433, -8, "America/Los_Angeles", 2422, 3),
        ("LAS", "McCarran Intl", "Las Vegas", "NV", 36.0801, -115.1522, 2141, -8, "America/Los_Angeles", 2248, 3),
        ("PHX", "Phoenix Sky Harbor Intl", "Phoenix", "AZ", 33.4343, -112.0116, 1135, -7, "America/Phoenix", 2133, 2),
        ("MSP", "Minneapolis St Paul Intl", "Minneapolis", "MN", 44.882, -93.2218, 841, -6, "America/Chicago", 1020, 3),
        ("DTW", "Detroit Metro Wayne Co", "Detroit", "MI", 42.2124, -83.3534, 645, -5, "America/Detroit", 502, 4),
        ("RDU", "Raleigh Durham Intl", "Raleigh", "NC", 35.8776, -78.7875, 435, -5, "America/New_York", 427, 3),
        ("TPA", "Tampa Intl", "Tampa", "FL", 27.9755, -82.5332, 26, -5, "America/New_York", 1005, 3),
        ("PBI", "Palm Beach Intl", "West Palm Beach", "FL", 26.6832, -80.0956, 19, -5, "America/New_York", 1028, 2),
        ("SJU", "Luis Munoz Marin Intl", "San Juan", "PR", 18.4394, -66.0018, 9, -4, "America/Puerto_Rico", 1598, 2),
        ("HNL", "Honolulu Intl", "Honolulu", "HI", 21.3187, -157.9224, 13, -10, "Pacific/Honolulu", 4983, 0.3),
        ("BUF", "Buffalo Niagara Intl", "Buffalo", "NY", 42.9405, -78.7322, 724, -5, "America/New_York", 301, 2),
        ("PIT", "Pittsburgh Intl", "Pittsburgh", "PA", 40.4915, -80.2329, 1203, -5, "America/New_York", 335, 2),
        ("AUS", "Austin Bergstrom Intl", "Austin", "TX", 30.1945, -97.6699, 542, -6, "America/Chicago", 1521, 2),
        ("BNA", "Nashville Intl", "Nashville", "TN", 36.1245, -86.6782, 599, -6, "America/Chicago", 764, 3),
        ("SLC", "Salt Lake City Intl", "Salt Lake City", "UT", 40.7884, -111.9778, 4227, -7, "America/Denver", 1990, 1.5),
        ("SAN", "San Diego Intl", "San Diego", "CA", 32.7336, -117.1897, 17, -8, "America/Los_Angeles", 2434, 1.5),
        ("CVG", "Cincinnati Northern Kentucky Intl", "Cincinnati", "KY", 39.0488, -84.6678, 896, -5, "America/New_York", 589, 1.5),
        ("MSY", "Louis Armstrong New Orleans Intl", "New Orleans", "LA", 29.9934, -90.258, 4, -6, "America/Chicago", 1183, 1.5),
        ("SAV", "Savannah Hilton Head Intl", "Savannah", "GA", 32.1276, -81.2021, 50, -5, "America/New_York", 722, 1),
        ("BTV", "Burlington Intl", "Burlington", "VT", 44.4719, -73.1533, 335, -5, "America/New_York", 266, 1),
        ("ANC", "Ted Stevens Anchorage Intl", "Anchorage", "AK", 61.1744, -149.9964, 152, -9, "America/Anchorage", 3370, 0),
    ]
    out["airports"] = [[a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]] for a in ap]
    dests = [a for a in ap if a[9] > 0 and a[10] > 0]
    dw = [a[10] for a in dests]
    carrier_hubs = {"AA": ["MIA", "DFW", "CLT", "ORD", "LAX"], "DL": ["ATL", "DTW", "MSP", "SEA", "LAX", "SLC"], "UA": ["ORD", "DEN", "SFO", "IAD", "LAX"],
                    "B6": None, "WN": ["DEN", "BNA", "AUS", "MSY", "LAS"], "AS": ["SEA", "SFO", "SAN"], "NK": ["FLL", "MCO", "LAS"], "F9": ["DEN", "MCO", "ATL"],
                    "HA": ["HNL"], "9E": ["RDU", "BOS", "PIT", "CVG", "BTV", "DTW"], "MQ": ["DCA", "RDU", "CLT", "BUF"], "YX": ["DCA", "BOS", "ORD", "IAD"], "OO": ["ORD", "DEN", "MSP"]}
    cw = {"AA": 12, "B6": 20, "DL": 16, "UA": 16, "WN": 5, "AS": 3, "NK": 4, "F9": 2, "HA": 0.3, "9E": 8, "MQ": 5, "YX": 6, "OO": 2}
    origins = {"EWR": 36, "JFK": 34, "LGA": 30}
    # planes
    planes = []
    tails_by = {}
    models = [("AIRBUS", "A320-214", 2, 182, "Turbo-fan"), ("AIRBUS", "A321-231", 2, 199, "Turbo-fan"), ("BOEING", "737-824", 2, 149, "Turbo-fan"),
              ("BOEING", "757-224", 2, 178, "Turbo-fan"), ("EMBRAER", "ERJ 190-100 IGW", 2, 100, "Turbo-fan"), ("EMBRAER", "EMB-175", 2, 76, "Turbo-fan"),
              ("BOMBARDIER INC", "CL-600-2D24", 2, 76, "Turbo-fan"), ("BOEING", "787-9", 2, 296, "Turbo-fan"), ("AIRBUS INDUSTRIE", "A320-232", 2, 150, "Turbo-fan")]
    n = 0
    for c, _ in airlines:
        k = max(4, int(cw[c] * 5))
        tails_by[c] = []
        for i in range(k):
            n += 1
            tail = f"N{rng.randint(100, 999)}{''.join(rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ') for _ in range(2))}"
            while any(p[0] == tail for p in planes):
                tail = f"N{rng.randint(100, 999)}{''.join(rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ') for _ in range(2))}"
            m = pick(rng, models[4:7]) if c in ("9E", "MQ", "YX", "OO") else pick(rng, models[:4] + models[7:])
            yr = rng.randint(1995, 2020) if rng.random() > 0.06 else None
            planes.append([tail, yr, "Fixed wing multi engine", m[0], m[1], m[2], m[3], m[4]])
            tails_by[c].append(tail)
    out["planes"] = planes
    # weather every 3 hours at each origin (hourly during a few storms)
    weather = []
    storm_days = [D(2023, 1, 23), D(2023, 3, 14), D(2023, 7, 9), D(2023, 7, 16), D(2023, 8, 8), D(2023, 9, 29), D(2023, 12, 18)]
    day = D(2023, 1, 1)
    wx = {}
    while day <= D(2023, 12, 31):
        doy = day.timetuple().tm_yday
        season = -math.cos((doy - 20) / 365 * 2 * math.pi)
        for o in origins:
            for h in range(0, 24, 3):
                temp = round(54 + 24 * season + 8 * math.sin((h - 9) / 24 * 2 * math.pi) + rng.gauss(0, 4), 1)
                storm = day in storm_days
                precip = round(rng.uniform(0.05, 0.6), 2) if storm and 6 <= h <= 21 else (round(rng.uniform(0.01, 0.1), 2) if rng.random() < 0.08 else 0.0)
                visib = 10.0 if precip == 0 else round(rng.uniform(0.5, 6), 1)
                wd = rng.randrange(0, 360, 10) if rng.random() > 0.05 else None
                ws = round(abs(rng.gauss(9, 5)) + (15 if storm else 0), 1) if rng.random() > 0.02 else None
                gust = round(ws * 1.4 + rng.uniform(2, 8), 1) if ws is not None and ws > 18 else None
                humid = round(min(100, max(15, 60 + 25 * (precip > 0) + rng.gauss(0, 12))), 1)
                dewp = round(temp - (100 - humid) / 5, 1)
                pressure = round(1015 + rng.gauss(0, 7) - (12 if storm else 0), 1) if rng.random() > 0.1 else None
                t = T(day.year, day.month, day.day, h)
                weather.append([o, ts(t), temp, dewp, humid, wd, ws, gust, precip, pressure, visib])
                wx[(o, day, h // 3)] = (precip, ws or 0, storm)
        day += TD(days=1)
    out["weather"] = weather
    flights = []
    fid = 0
    carriers = [a[0] for a in airlines]
    fnum = {}
    day = D(2023, 1, 1)
    while day <= D(2023, 12, 31):
        nday = int(rng.gauss(48 if day.weekday() != 5 else 38, 4) * (1.12 if day.month in (6, 7, 8, 12) else 0.92 if day.month in (1, 2) else 1.0))
        for _ in range(nday):
            c = rng.choices(carriers, [cw[x] for x in carriers])[0]
            hubs = carrier_hubs[c]
            if hubs is None:
                d = rng.choices(dests, dw)[0]
            else:
                d = [a for a in dests if a[0] == pick(rng, hubs)]
                d = d[0] if d else rng.choices(dests, dw)[0]
            o = rng.choices(list(origins.keys()), list(origins.values()))[0]
            if c == "B6" and rng.random() < 0.6:
                o = "JFK"
            if c == "UA" and rng.random() < 0.6:
                o = "EWR"
            if c == "HA":
                o, d = "JFK", [a for a in ap if a[0] == "HNL"][0]
            key = (c, o, d[0])
            if key not in fnum:
                fnum[key] = rng.randint(1, 2999) if c not in ("9E", "MQ", "YX", "OO") else rng.randint(3000, 6199)
            sched_h = rng.choices(range(5, 24), [2, 6, 8, 7, 6, 6, 5, 5, 5, 6, 6, 6, 7, 7, 6, 5, 4, 3, 2])[0]
            sched_m = rng.choice([0, 0, 5, 10, 15, 20, 25, 29, 30, 35, 40, 45, 50, 55, 59])
            sched = sched_h * 100 + sched_m
            dist = d[9] + {"EWR": 0, "JFK": 10, "LGA": -5}[o]
            air = dist / 7.6 + 25 + rng.gauss(0, 8)
            blk = air + 25
            sa_total = sched_h * 60 + sched_m + int(blk) + (d[7] + 5) * 60
            sched_arr = (sa_total // 60 % 24) * 100 + sa_total % 60
            precip, wsp, storm = wx[(o, day, sched_h // 3)]
            cancel_p = 0.012 + (0.25 if storm and precip > 0.1 else 0) + (0.01 if c in ("9E", "MQ", "YX") else 0)
            tail = pick(rng, tails_by[c]) if rng.random() > 0.01 else None
            fid += 1
            if rng.random() < cancel_p:
                flights.append([fid, 2023, day.month, day.day, None, sched, None, None, sched_arr, None, c, fnum[key], tail, o, d[0], None, dist, sched_h, sched_m,
                                ts(T(2023, day.month, day.day, sched_h)), 1])
                continue
            base = rng.expovariate(1 / 14) - 8
            base += (sched_h - 12) * 0.9 if sched_h > 12 else 0
            base += 18 if storm else 0
            base += {6: 6, 7: 9, 8: 4, 12: 5}.get(day.month, 0)
            base += {"NK": 6, "F9": 5, "B6": 3, "DL": -3, "AS": -3, "HA": -4}.get(c, 0)
            if rng.random() < 0.04:
                base += rng.uniform(60, 300)
            dep_delay = float(round(base))
            dm = sched_h * 60 + sched_m + int(dep_delay)
            dep_time = (dm // 60 % 24) * 100 + dm % 60
            air_time = round(air + rng.gauss(0, 6))
            arr_delay = dep_delay + round(air_time + 25 - blk + rng.gauss(-3, 6))
            am = sa_total + int(arr_delay)
            arr_time = (am // 60 % 24) * 100 + am % 60
            if rng.random() < 0.003:  # diverted
                arr_time, arr_delay, air_time = None, None, None
            flights.append([fid, 2023, day.month, day.day, dep_time, sched, dep_delay, arr_time, sched_arr, arr_delay, c, fnum[key], tail, o, d[0],
                            float(air_time) if air_time is not None else None, dist, sched_h, sched_m, ts(T(2023, day.month, day.day, sched_h)), 0])
        day += TD(days=1)
    out["flights"] = flights
    return out


# ---------------------------------------------------------------------------------------
# film_rental: a DVD rental chain (Sakila-like shape, singular names, declared keys)
# ---------------------------------------------------------------------------------------

FILM_DDL = """
CREATE TABLE language (
  language_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL
);
CREATE TABLE category (
  category_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL
);
CREATE TABLE actor (
  actor_id INTEGER PRIMARY KEY,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL
);
CREATE TABLE film (
  film_id INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  description TEXT,
  release_year INTEGER,
  language_id INTEGER NOT NULL REFERENCES language(language_id),
  rental_duration INTEGER NOT NULL,
  rental_rate NUMERIC(4,2) NOT NULL,
  length INTEGER,
  replacement_cost NUMERIC(5,2) NOT NULL,
  rating TEXT,
  special_features TEXT
);
CREATE TABLE film_actor (
  actor_id INTEGER NOT NULL REFERENCES actor(actor_id),
  film_id INTEGER NOT NULL REFERENCES film(film_id),
  PRIMARY KEY (actor_id, film_id)
);
CREATE TABLE film_category (
  film_id INTEGER NOT NULL REFERENCES film(film_id),
  category_id INTEGER NOT NULL REFERENCES category(category_id),
  PRIMARY KEY (film_id, category_id)
);
CREATE TABLE store (
  store_id INTEGER PRIMARY KEY,
  city TEXT NOT NULL,
  opened_on DATE NOT NULL
);
CREATE TABLE staff (
  staff_id INTEGER PRIMARY KEY,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  store_id INTEGER NOT NULL REFERENCES store(store_id),
  email TEXT,
  active BOOLEAN NOT NULL
);
CREATE TABLE customer (
  customer_id INTEGER PRIMARY KEY,
  store_id INTEGER NOT NULL REFERENCES store(store_id),
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  email TEXT,
  active BOOLEAN NOT NULL,
  create_date DATE NOT NULL
);
CREATE TABLE inventory (
  inventory_id INTEGER PRIMARY KEY,
  film_id INTEGER NOT NULL REFERENCES film(film_id),
  store_id INTEGER NOT NULL REFERENCES store(store_id),
  acquired_on DATE NOT NULL
);
CREATE TABLE rental (
  rental_id INTEGER PRIMARY KEY,
  rental_date TIMESTAMP NOT NULL,
  inventory_id INTEGER NOT NULL REFERENCES inventory(inventory_id),
  customer_id INTEGER NOT NULL REFERENCES customer(customer_id),
  return_date TIMESTAMP,
  staff_id INTEGER NOT NULL REFERENCES staff(staff_id)
);
CREATE TABLE payment (
  payment_id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customer(customer_id),
  staff_id INTEGER NOT NULL REFERENCES staff(staff_id),
  rental_id INTEGER REFERENCES rental(rental_id),
  amount NUMERIC(5,2) NOT NULL,
  payment_date TIMESTAMP NOT NULL
);
"""


def gen_film(rng):
    out = {}
    out["language"] = [[1, "English"], [2, "Italian"], [3, "Japanese"], [4, "Mandarin"], [5, "French"], [6, "German"]]
    cats = ["Action", "Animation", "Children", "Classics", "Comedy", "Documentary", "Drama", "Family", "Foreign", "Games", "Horror", "Music", "New", "Sci-Fi", "Sports", "Travel"]
    out["category"] = [[i + 1, c] for i, c in enumerate(cats)]
    actors = []
    for i in range(1, 151):
        f, l = person(rng)
        actors.append([i, f.upper(), l.upper()])
    actors[99][1], actors[99][2] = actors[3][1], actors[3][2]  # two actors, same name
    out["actor"] = actors
    adj = ["Silent", "Crimson", "Lonely", "Golden", "Frozen", "Midnight", "Savage", "Electric", "Hidden", "Broken", "Wild", "Lucky", "Velvet", "Iron", "Paper",
           "Burning", "Hollow", "Secret", "Brave", "Last"]
    noun = ["Harbor", "Orchard", "Empire", "Garden", "Horizon", "Canyon", "Mirror", "Voyage", "Circus", "Fortress", "Lagoon", "Highway", "Kingdom", "Meadow",
            "Station", "Carnival", "Dynasty", "Frontier", "Labyrinth", "Symphony", "Tornado", "Volcano", "Whisper", "Academy", "Ballroom"]
    titles = []
    seen = set()
    while len(titles) < 500:
        t = f"{pick(rng, adj)} {pick(rng, noun)}".upper()
        if t in seen:
            continue
        seen.add(t)
        titles.append(t)
    films = []
    feats = ["Trailers", "Commentaries", "Deleted Scenes", "Behind the Scenes"]
    for i, t in enumerate(titles, 1):
        lang = 1 if rng.random() < 0.85 else rng.randint(2, 6)
        k = rng.randint(0, 3)
        sf = ",".join(sorted(rng.sample(feats, k), key=feats.index)) if k else None
        films.append([i, t, f"A {pick(rng, ['thoughtful', 'fast-paced', 'touching', 'astounding', 'boring', 'epic'])} {pick(rng, ['drama', 'story', 'saga', 'documentary', 'tale'])} of a "
                      f"{pick(rng, ['dentist', 'robot', 'astronaut', 'chef', 'detective', 'cat', 'teacher'])} who must {pick(rng, ['find', 'outrace', 'confront', 'rescue', 'chase'])} a "
                      f"{pick(rng, ['dog', 'pirate', 'mad scientist', 'lumberjack', 'car'])} in {pick(rng, ['a shark tank', 'Ancient China', 'the Canadian Rockies', 'a jet boat', 'Berlin'])}" if rng.random() > 0.03 else None,
                      pick(rng, [2006, 2006, 2006, 2007, 2008]) if rng.random() > 0.05 else None, lang, rng.randint(3, 7), pick(rng, [0.99, 2.99, 4.99]),
                      rng.randint(46, 185) if rng.random() > 0.02 else None, pick(rng, [9.99, 12.99, 14.99, 17.99, 19.99, 20.99, 22.99, 24.99, 29.99]),
                      pick(rng, ["G", "PG", "PG-13", "R", "NC-17", None], [18, 20, 22, 20, 19, 1]), sf])
    out["film"] = films
    fa = set()
    for f in films:
        for a in rng.sample(range(1, 151), rng.randint(1, 10)):
            fa.add((a, f[0]))
    out["film_actor"] = [list(x) for x in sorted(fa)]
    out["film_category"] = [[f[0], rng.randint(1, 16)] for f in films]
    out["store"] = [[1, "Lethbridge", "2019-02-14"], [2, "Woodridge", "2020-05-24"]]
    out["staff"] = [[1, "Mike", "Hillyer", 1, "mike.hillyer@rental.test", 1], [2, "Jon", "Stephens", 2, "jon.stephens@rental.test", 1],
                    [3, "Ana", "Kowalski", 1, None, 0], [4, "Rosa", "Okafor", 2, "rosa.okafor@rental.test", 1]]
    customers = []
    for i in range(1, 601):
        f, l = person(rng)
        customers.append([i, 1 if rng.random() < 0.55 else 2, f.upper(), l.upper(), email_of(f, l, i, "rental-customer.test") if rng.random() > 0.05 else None,
                          1 if rng.random() > 0.04 else 0, ds(rand_date(rng, D(2022, 1, 1), D(2024, 3, 31)))])
    out["customer"] = customers
    inv = []
    pop = {}
    for f in films:
        pop[f[0]] = rng.lognormvariate(0, 0.9)
        copies = max(0, int(round(pop[f[0]] * 2.5)))
        if f[0] % 37 == 0:
            copies = 0  # never stocked
        for _ in range(min(copies, 8)):
            inv.append([len(inv) + 1, f[0], 1 if rng.random() < 0.5 else 2, ds(rand_date(rng, D(2022, 1, 1), D(2023, 6, 1)))])
    out["inventory"] = inv
    by_store = {1: [x for x in inv], 2: [x for x in inv]}
    by_store = {s: [x for x in inv if x[2] == s] for s in (1, 2)}
    iw = {s: [pop[x[1]] for x in by_store[s]] for s in (1, 2)}
    rentals, pays = [], []
    busy_until = {}
    rid = pid = 0
    film_by = {f[0]: f for f in films}
    cust_act = {c[0]: rng.lognormvariate(0, 0.7) for c in customers}
    cw = [cust_act[c[0]] for c in customers]
    day = D(2023, 1, 1)
    while day <= D(2024, 6, 30):
        # the chain closes for two weeks each August (a gap in activity)
        if day.month == 8 and 5 <= day.day <= 18:
            day += TD(days=1)
            continue
        n = int(rng.gauss(20 if day.weekday() >= 4 else 13, 3) * (1.25 if day.month in (12, 1, 7) else 1))
        for _ in range(max(n, 0)):
            c = rng.choices(customers, cw)[0]
            if D.fromisoformat(c[6]) > day:
                continue
            store = c[1] if rng.random() < 0.9 else 3 - c[1]
            it = rng.choices(by_store[store], iw[store])[0]
            t = rand_time_on(rng, day, EVENING_HOURS)
            if busy_until.get(it[0], T(2000, 1, 1)) > t:
                continue
            f = film_by[it[1]]
            rid += 1
            keep = rng.choice([1, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10])
            ret = t + TD(days=keep, hours=rng.randint(-5, 5))
            if ret > T(2024, 6, 30, 23, 0) or rng.random() < 0.01:
                ret = None
            busy_until[it[0]] = ret if ret is not None else T(2100, 1, 1)
            staff = pick(rng, [1, 3]) if store == 1 else pick(rng, [2, 4])
            if t.date() > D(2023, 9, 1) and staff == 3:
                staff = 1
            rentals.append([rid, ts(t), it[0], c[0], ts(ret), staff])
            amount = f[6]
            if ret is not None and (ret - t).days > f[5]:
                amount = money(amount + ((ret - t).days - f[5]) * 1.0)
            if rng.random() > 0.015:
                pid += 1
                pays.append([pid, c[0], staff, rid, amount, ts(t + TD(minutes=rng.randint(0, 3)))])
        day += TD(days=1)
    # some payments not tied to a rental (membership fees, lost-disc charges)
    for _ in range(120):
        c = pick(rng, customers)
        pid += 1
        d = rand_date(rng, max(D.fromisoformat(c[6]), D(2023, 1, 1)), D(2024, 6, 30))
        pays.append([pid, c[0], pick(rng, [1, 2, 4]), None, pick(rng, [5.0, 10.0, 19.99]), ts(rand_time_on(rng, d, BUSINESS_HOURS))])
    out["rental"] = rentals
    out["payment"] = pays
    return out


# ---------------------------------------------------------------------------------------
# marketing: warehouse-style star schema (dim_/fct_ tables, no declared keys, SCD2)
# ---------------------------------------------------------------------------------------

MARKETING_DDL = """
CREATE TABLE dim_date (
  date_key INTEGER PRIMARY KEY,
  full_date DATE NOT NULL,
  year INTEGER NOT NULL,
  quarter INTEGER NOT NULL,
  month INTEGER NOT NULL,
  month_name TEXT NOT NULL,
  iso_week INTEGER NOT NULL,
  day_of_week TEXT NOT NULL,
  is_weekend BOOLEAN NOT NULL,
  is_holiday BOOLEAN NOT NULL
);
CREATE TABLE dim_channel (
  channel_key INTEGER PRIMARY KEY,
  channel_name TEXT NOT NULL,
  channel_group TEXT NOT NULL,
  is_paid BOOLEAN NOT NULL
);
CREATE TABLE dim_campaign (
  campaign_key INTEGER PRIMARY KEY,
  campaign_code TEXT NOT NULL,
  campaign_name TEXT NOT NULL,
  channel_key INTEGER NOT NULL,
  objective TEXT NOT NULL,
  start_date DATE NOT NULL,
  end_date DATE,
  daily_budget NUMERIC(10,2),
  target_country TEXT,
  status TEXT NOT NULL
);
CREATE TABLE dim_customer (
  customer_key INTEGER PRIMARY KEY,
  customer_id TEXT NOT NULL,
  country TEXT,
  segment TEXT NOT NULL,
  first_touch_channel_key INTEGER,
  valid_from DATE NOT NULL,
  valid_to DATE,
  is_current BOOLEAN NOT NULL
);
CREATE TABLE fct_ad_spend_daily (
  date_key INTEGER NOT NULL,
  campaign_key INTEGER NOT NULL,
  impressions INTEGER NOT NULL,
  clicks INTEGER NOT NULL,
  spend NUMERIC(12,2) NOT NULL,
  video_views INTEGER,
  PRIMARY KEY (date_key, campaign_key)
);
CREATE TABLE fct_conversions (
  conversion_id INTEGER PRIMARY KEY,
  date_key INTEGER NOT NULL,
  campaign_key INTEGER,
  customer_key INTEGER NOT NULL,
  conversion_type TEXT NOT NULL,
  revenue NUMERIC(12,2),
  attribution_model TEXT NOT NULL
);
CREATE TABLE fct_email_sends (
  send_id INTEGER PRIMARY KEY,
  date_key INTEGER NOT NULL,
  campaign_key INTEGER NOT NULL,
  customer_key INTEGER NOT NULL,
  delivered BOOLEAN NOT NULL,
  opened BOOLEAN NOT NULL,
  clicked BOOLEAN NOT NULL,
  unsubscribed BOOLEAN NOT NULL
);
"""


def gen_marketing(rng):
    out = {}
    holidays = {D(2023, 1, 1), D(2023, 5, 29), D(2023, 7, 4), D(2023, 9, 4), D(2023, 11, 23), D(2023, 12, 25), D(2024, 1, 1), D(2024, 5, 27)}
    dates = []
    d = D(2023, 1, 1)
    while d <= ANCHOR:
        iso = d.isocalendar()
        dates.append([int(d.strftime("%Y%m%d")), ds(d), d.year, (d.month - 1) // 3 + 1, d.month, d.strftime("%B"), iso[1], d.strftime("%A"),
                      1 if d.weekday() >= 5 else 0, 1 if d in holidays else 0])
        d += TD(days=1)
    # the date dimension runs to the end of 2024, as warehouse calendars do
    while d <= D(2024, 12, 31):
        iso = d.isocalendar()
        dates.append([int(d.strftime("%Y%m%d")), ds(d), d.year, (d.month - 1) // 3 + 1, d.month, d.strftime("%B"), iso[1], d.strftime("%A"),
                      1 if d.weekday() >= 5 else 0, 1 if d in (D(2024, 7, 4), D(2024, 9, 2), D(2024, 11, 28), D(2024, 12, 25)) else 0])
        d += TD(days=1)
    out["dim_date"] = dates
    chans = [[1, "Google Search", "Paid Search", 1], [2, "Bing Search", "Paid Search", 1], [3, "Meta", "Paid Social", 1], [4, "TikTok", "Paid Social", 1],
             [5, "Display Network", "Display", 1], [6, "Newsletter", "Email", 0], [7, "Affiliates", "Affiliate", 1], [8, "Organic Search", "Organic", 0]]
    out["dim_channel"] = chans
    camps = []
    themes = ["Brand", "Spring Sale", "Summer Launch", "Back to School", "Black Friday", "Holiday Gifts", "New Year", "Retargeting", "Prospecting", "Loyalty"]
    ck = 0
    for ch in [1, 1, 1, 1, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 6, 7, 7] + [1, 3, 4, 6, 1, 3, 5, 6, 2, 7, 3, 1, 6, 4]:
        ck += 1
        theme = pick(rng, themes)
        start = rand_date(rng, D(2023, 1, 1), D(2024, 5, 15))
        if theme == "Black Friday":
            start = D(2023, 11, rng.randint(10, 20))
        if theme == "Holiday Gifts":
            start = D(2023, 12, rng.randint(1, 8))
        if theme == "Brand":
            start = D(2023, 1, 1)
        length = rng.randint(14, 120) if theme != "Brand" else None
        end = start + TD(days=length) if length else None
        if end is not None and end > ANCHOR:
            end = None if rng.random() < 0.5 else end
        status = "active" if end is None or end >= ANCHOR else "completed"
        if rng.random() < 0.06:
            status = "paused"
        country = pick(rng, ["US", "GB", "DE", None], [50, 15, 10, 25])
        code = f"{chans[ch - 1][1][:3].upper()}-{theme[:4].upper().replace(' ', '')}-{start.strftime('%y%m')}"
        budget = money(pick(rng, [50, 100, 150, 200, 300, 500, 750, 1000])) if ch != 6 and rng.random() > 0.08 else None
        camps.append([ck, code, f"{theme} {start.year} - {chans[ch - 1][1]}" + (f" {country}" if country else ""), ch,
                      pick(rng, ["awareness", "consideration", "conversion"], [20, 30, 50]), ds(start), ds(end), budget, country, status])
    camps[15][2] = camps[14][2]  # two campaigns, same name
    out["dim_campaign"] = camps
    spend = []
    ctr = {1: 0.045, 2: 0.035, 3: 0.012, 4: 0.009, 5: 0.002, 6: 0.03, 7: 0.01}
    cpm = {1: 28, 2: 20, 3: 9, 4: 6, 5: 2.5, 6: 0.0, 7: 5}
    camp_days = []
    for c in camps:
        s = D.fromisoformat(c[5])
        e = D.fromisoformat(c[6]) if c[6] else ANCHOR
        if c[3] == 6:
            continue  # email has no spend rows; see fct_email_sends
        d = s
        scale = rng.lognormvariate(0, 0.6)
        while d <= min(e, ANCHOR):
            if c[9] == "paused" and d > s + TD(days=20):
                break
            if rng.random() < 0.03:
                d += TD(days=1)
                continue  # missing day in the feed
            season = 1.8 if (d.month == 11 and d.day >= 15) or (d.month == 12 and d.day < 20) else 1.0
            wk = 0.8 if d.weekday() >= 5 else 1.0
            imps = int(scale * 4000 * season * wk * rng.uniform(0.7, 1.3))
            clicks = int(imps * ctr[c[3]] * rng.uniform(0.6, 1.4))
            sp = money(imps / 1000 * cpm[c[3]] * rng.uniform(0.8, 1.2))
            if c[7] is not None:
                sp = min(sp, money(float(c[7]) * 1.2))
            vv = int(imps * rng.uniform(0.05, 0.3)) if c[3] in (3, 4, 5) else None
            spend.append([int(d.strftime("%Y%m%d")), c[0], imps, clicks, sp, vv])
            camp_days.append((d, c[0], clicks))
            d += TD(days=1)
    out["fct_ad_spend_daily"] = spend
    custs = []
    key = 0
    for i in range(1, 3501):
        created = rand_date(rng, D(2022, 6, 1), D(2024, 6, 28))
        seg = pick(rng, ["consumer", "smb", "enterprise"], [70, 25, 5])
        country = pick(rng, ["US", "GB", "DE", "FR", "CA", None], [45, 15, 12, 8, 10, 10])
        ft = pick(rng, [1, 2, 3, 4, 5, 6, 7, 8, None], [25, 5, 20, 8, 5, 5, 7, 15, 10])
        key += 1
        if rng.random() < 0.12:
            change = rand_date(rng, created + TD(days=1), ANCHOR) if created < ANCHOR else None
            if change is not None:
                custs.append([key, f"C{i:06d}", country, seg, ft, ds(created), ds(change - TD(days=1)), 0])
                key += 1
                seg2 = "smb" if seg == "consumer" else "enterprise" if seg == "smb" else seg
                custs.append([key, f"C{i:06d}", pick(rng, ["US", "GB", "DE", "FR", "CA"]) if rng.random() < 0.3 else country, seg2, ft, ds(change), None, 1])
                continue
        custs.append([key, f"C{i:06d}", country, seg, ft, ds(created), None, 1])
    out["dim_customer"] = custs
    convs = []
    cw = [x[2] + 0.5 for x in camp_days]
    for i in range(1, 6001):
        if rng.random() < 0.12:
            d = rand_date(rng, D(2023, 1, 1), ANCHOR)
            camp = None
        else:
            d, camp, _ = rng.choices(camp_days, cw)[0]
            d = min(d + TD(days=rng.choice([0, 0, 0, 1, 2, 5])), ANCHOR)
        cust = pick(rng, custs)
        ctype = pick(rng, ["purchase", "signup", "lead"], [50, 35, 15])
        rev = money(rng.lognormvariate(4, 0.8)) if ctype == "purchase" else None
        convs.append([i, int(d.strftime("%Y%m%d")), camp, cust[0], ctype, rev, pick(rng, ["last_click", "first_click", "linear"], [70, 15, 15])])
    convs.sort(key=lambda r: (r[1], r[0]))
    out["fct_conversions"] = [[i + 1] + r[1:] for i, r in enumerate(convs)]
    sends = []
    sid = 0
    email_camps = [c for c in camps if c[3] == 6]
    current = [c for c in custs if c[7] == 1]
    unsubscribed = set()
    for c in email_camps:
        s = D.fromisoformat(c[5])
        e = D.fromisoformat(c[6]) if c[6] else ANCHOR
        d = s
        while d <= min(e, ANCHOR) and sid < 7500:
            if d.weekday() == 1:
                for cu in rng.sample(current, 90):
                    if cu[1] in unsubscribed:
                        continue
                    sid += 1
                    delivered = 1 if rng.random() > 0.03 else 0
                    opened = 1 if delivered and rng.random() < 0.24 else 0
                    clicked = 1 if opened and rng.random() < 0.18 else 0
                    uns = 1 if delivered and rng.random() < 0.006 else 0
                    if uns:
                        unsubscribed.add(cu[1])
                    sends.append([sid, int(d.strftime("%Y%m%d")), c[0], cu[0], delivered, opened, clicked, uns])
            d += TD(days=1)
    out["fct_email_sends"] = sends
    return out


# ---------------------------------------------------------------------------------------
# bank: retail bank ledger (CamelCase names in the Chinook style, declared keys)
# ---------------------------------------------------------------------------------------

BANK_DDL = """
CREATE TABLE Branch (
  BranchId INTEGER PRIMARY KEY,
  BranchName NVARCHAR(80) NOT NULL,
  City NVARCHAR(60) NOT NULL,
  Region NVARCHAR(40),
  OpenedOn DATE NOT NULL
);
CREATE TABLE Customer (
  CustomerId INTEGER PRIMARY KEY,
  FirstName NVARCHAR(40) NOT NULL,
  LastName NVARCHAR(40) NOT NULL,
  DateOfBirth DATE,
  Segment NVARCHAR(20) NOT NULL,
  HomeBranchId INTEGER REFERENCES Branch(BranchId),
  JoinedOn DATE NOT NULL,
  KycVerifiedAt DATETIME,
  Email NVARCHAR(120),
  RiskScore INTEGER
);
CREATE TABLE Account (
  AccountId INTEGER PRIMARY KEY,
  CustomerId INTEGER NOT NULL REFERENCES Customer(CustomerId),
  Iban NVARCHAR(34) NOT NULL,
  AccountType NVARCHAR(20) NOT NULL,
  Currency NVARCHAR(3) NOT NULL,
  OpenedOn DATE NOT NULL,
  ClosedOn DATE,
  OverdraftLimit NUMERIC(12,2),
  InterestRate REAL
);
CREATE TABLE LedgerEntry (
  EntryId INTEGER PRIMARY KEY,
  AccountId INTEGER NOT NULL REFERENCES Account(AccountId),
  PostedAt DATETIME NOT NULL,
  ValueDate DATE NOT NULL,
  Amount NUMERIC(14,2) NOT NULL,
  EntryType NVARCHAR(20) NOT NULL,
  Counterparty NVARCHAR(80),
  Description NVARCHAR(200),
  IsReversal BOOLEAN NOT NULL
);
CREATE TABLE FxRate (
  RateDate DATE NOT NULL,
  Currency NVARCHAR(3) NOT NULL,
  UnitsPerEur REAL NOT NULL
);
CREATE TABLE Loan (
  LoanId INTEGER PRIMARY KEY,
  AccountId INTEGER NOT NULL REFERENCES Account(AccountId),
  LoanType NVARCHAR(20) NOT NULL,
  Principal NUMERIC(12,2) NOT NULL,
  AnnualRate REAL NOT NULL,
  TermMonths INTEGER NOT NULL,
  StartDate DATE NOT NULL,
  Status NVARCHAR(20) NOT NULL
);
CREATE TABLE LoanRepayment (
  RepaymentId INTEGER PRIMARY KEY,
  LoanId INTEGER NOT NULL REFERENCES Loan(LoanId),
  DueDate DATE NOT NULL,
  AmountDue NUMERIC(12,2) NOT NULL,
  PaidDate DATE,
  AmountPaid NUMERIC(12,2)
);
CREATE TABLE Card (
  CardId INTEGER PRIMARY KEY,
  AccountId INTEGER NOT NULL REFERENCES Account(AccountId),
  CardType NVARCHAR(10) NOT NULL,
  Network NVARCHAR(12) NOT NULL,
  Last4 NVARCHAR(4) NOT NULL,
  IssuedOn DATE NOT NULL,
  ExpiresOn DATE NOT NULL,
  BlockedAt DATETIME
);
"""


def gen_bank(rng):
    out = {}
    branches = [[1, "Amsterdam Centraal", "Amsterdam", "Noord-Holland", "2001-04-02"], [2, "Amsterdam Zuid", "Amsterdam", "Noord-Holland", "2008-09-15"],
                [3, "Rotterdam Blaak", "Rotterdam", "Zuid-Holland", "2003-01-20"], [4, "Utrecht Neude", "Utrecht", "Utrecht", "2005-06-01"],
                [5, "Den Haag Plein", "The Hague", "Zuid-Holland", "2006-03-13"], [6, "Eindhoven Markt", "Eindhoven", "Noord-Brabant", "2010-11-08"],
                [7, "Groningen Grote Markt", "Groningen", None, "2012-02-27"], [8, "Maastricht Vrijthof", "Maastricht", "Limburg", "2014-05-05"],
                [9, "Online", "Amsterdam", None, "2018-01-01"], [10, "Leiden Breestraat", "Leiden", "Zuid-Holland", "2016-10-10"],
                [11, "Haarlem Grote Markt", "Haarlem", "Noord-Holland", "2015-03-30"], [12, "Arnhem Korenmarkt", "Arnhem", "Gelderland", "2019-08-19"]]
    out["Branch"] = branches
    custs = []
    for i in range(1, 1201):
        f, l = person(rng)
        joined = rand_date(rng, D(2015, 1, 1), D(2024, 6, 1))
        seg = pick(rng, ["Retail", "Private", "SME"], [80, 7, 13])
        kyc = T.combine(joined + TD(days=rng.randint(0, 20)), dt.time(rng.randint(8, 18), rng.randint(0, 59))) if rng.random() > 0.04 else None
        if kyc is not None and kyc.date() > ANCHOR:
            kyc = None
        custs.append([i, f, l, ds(rand_date(rng, D(1945, 1, 1), D(2005, 12, 31))) if rng.random() > 0.02 else None, seg,
                      pick(rng, list(range(1, 13)), [14, 8, 10, 9, 8, 6, 5, 4, 20, 5, 6, 5]) if rng.random() > 0.03 else None,
                      ds(joined), ts(kyc), email_of(f, l, i, "bankmail.test") if rng.random() > 0.1 else None, rng.randint(1, 99) if rng.random() > 0.15 else None])
    out["Customer"] = custs
    accts = []
    aid = 0
    for c in custs:
        joined = D.fromisoformat(c[6])
        types = ["Checking"] + (["Savings"] if rng.random() < 0.55 else []) + (["CreditCard"] if rng.random() < 0.35 else []) + (["Loan"] if rng.random() < 0.17 else [])
        if c[4] == "SME":
            types.append("Checking")
        for ty in types:
            aid += 1
            cur = "EUR" if rng.random() < 0.9 else pick(rng, ["USD", "GBP"])
            opened = joined + TD(days=rng.randint(0, 400)) if ty != "Checking" else joined
            if opened > D(2024, 6, 20):
                opened = joined
            closed = rand_date(rng, opened + TD(days=30), D(2024, 6, 29)) if rng.random() < 0.08 and opened < D(2024, 5, 1) else None
            od = money(pick(rng, [0, 250, 500, 1000, 2500])) if ty == "Checking" and rng.random() > 0.3 else None
            rate = round(pick(rng, [0.5, 1.0, 1.25, 1.5, 2.0]), 2) if ty == "Savings" else (round(rng.uniform(9, 18), 2) if ty == "CreditCard" else None)
            iban = f"NL{rng.randint(10, 99)}NLBK{rng.randint(10 ** 9, 10 ** 10 - 1)}"
            accts.append([aid, c[0], iban, ty, cur, ds(opened), ds(closed), od, rate])
    out["Account"] = accts
    ledger = []
    eid = 0
    merchants = ["Albert Heijn", "Jumbo", "Bol.com", "NS Reizen", "Shell", "Coolblue", "Spotify", "Netflix", "Zalando", "HEMA", "IKEA", "Thuisbezorgd", "Uber", "KLM"]
    employers = ["Philips NV", "ASML", "Gemeente Amsterdam", "Booking.com", "Randstad", "Unilever", None]
    checking = [a for a in accts if a[3] == "Checking"]
    active_w = [rng.lognormvariate(0, 0.8) for _ in checking]
    # salaries monthly for some, card payments, transfers
    for a, w in zip(checking, active_w):
        opened = max(D.fromisoformat(a[5]), D(2023, 7, 1))
        closed = D.fromisoformat(a[6]) if a[6] else ANCHOR
        if rng.random() < 0.5 and opened < closed:
            emp = pick(rng, employers)
            sal = money(rng.uniform(2200, 6500))
            m = D(opened.year, opened.month, 1)
            while m <= closed:
                pd = D(m.year, m.month, 25)
                if opened <= pd <= closed:
                    eid += 1
                    ledger.append([eid, a[0], ts(T.combine(pd, dt.time(6, 0, rng.randint(0, 59)))), ds(pd), sal, "Salary", emp, f"SALARIS {pd.strftime('%m-%Y')}", 0])
                m = add_months(m, 1)
    for i in range(10500):
        a = rng.choices(checking, active_w)[0]
        opened = max(D.fromisoformat(a[5]), D(2023, 7, 1))
        closed = D.fromisoformat(a[6]) if a[6] else ANCHOR
        if opened > closed:
            continue
        d = seasonal_date(rng, opened, closed, [1, .85, .9, .9, .9, .95, 1, 1, .9, .9, .95, 1], [.9, .9, .9, .95, 1, 1, .6])
        kind = pick(rng, ["CardPayment", "Transfer", "DirectDebit", "ATM", "Fee", "Interest"], [62, 14, 12, 8, 3, 1])
        t = rand_time_on(rng, d, EVENING_HOURS if kind == "CardPayment" else BUSINESS_HOURS)
        cp = None
        desc = None
        if kind == "CardPayment":
            cp = pick(rng, merchants)
            amt = -money(rng.lognormvariate(3, 1.0))
            desc = f"BEA {cp.upper()} PAS{rng.randint(100, 999)}"
        elif kind == "Transfer":
            amt = money(rng.lognormvariate(4.5, 1.1)) * (1 if rng.random() < 0.4 else -1)
            cp = f"{pick(rng, FIRST_NAMES)[0]}. {pick(rng, LAST_NAMES)}" if rng.random() > 0.1 else None
            desc = pick(rng, ["Rent", "Dinner", "Terugbetaling", "Gift", None])
        elif kind == "DirectDebit":
            cp = pick(rng, ["Vattenfall", "Ziggo", "KPN", "Zilveren Kruis", "Belastingdienst", "Gemeente Utrecht"])
            amt = -money(rng.uniform(20, 180))
            desc = f"INCASSO {cp.upper()}"
        elif kind == "ATM":
            amt = -float(pick(rng, [20, 50, 50, 100, 200]))
            desc = "GELDAUTOMAAT"
        elif kind == "Fee":
            amt = -float(pick(rng, [2.5, 2.5, 5.0, 12.5]))
            desc = pick(rng, ["Kosten betaalpakket", "Rente roodstand", "Kosten buitenland"])
        else:
            amt = money(rng.uniform(0.1, 15))
            desc = "Rente"
        vd = d if kind != "Transfer" or t.hour < 17 else d + TD(days=1)
        eid += 1
        ledger.append([eid, a[0], ts(t), ds(min(vd, ANCHOR)), money(amt), kind, cp, desc, 0])
    # a few reversals of card payments
    cards = [e for e in ledger if e[5] == "CardPayment"]
    for e in rng.sample(cards, 60):
        eid += 1
        rt = T.fromisoformat(e[2]) + TD(days=rng.randint(1, 6))
        if rt.date() > ANCHOR:
            continue
        ledger.append([eid, e[1], ts(rt), ds(rt.date()), -e[4], "CardPayment", e[6], "TERUGBOEKING " + (e[7] or ""), 1])
    ledger.sort(key=lambda e: (e[2], e[1], e[0]))
    out["LedgerEntry"] = [[i + 1] + e[1:] for i, e in enumerate(ledger)]
    fx = []
    d = D(2023, 6, 26)
    usd, gbp = 1.09, 0.86
    while d <= ANCHOR:
        if d.weekday() < 5:  # no rates at weekends
            usd = round(usd * math.exp(rng.gauss(0, 0.004)), 4)
            gbp = round(gbp * math.exp(rng.gauss(0, 0.003)), 4)
            fx.append([ds(d), "USD", usd])
            fx.append([ds(d), "GBP", gbp])
        d += TD(days=1)
    out["FxRate"] = fx
    loans, reps = [], []
    lid = rpid = 0
    for a in accts:
        if a[3] != "Loan":
            continue
        lid += 1
        start = max(D.fromisoformat(a[5]), D(2022, 1, 1))
        start = D(start.year, start.month, 1)
        term = pick(rng, [12, 24, 36, 60, 120])
        principal = money(pick(rng, [5000, 10000, 15000, 25000, 50000, 150000]) * rng.uniform(0.8, 1.2))
        rate = round(rng.uniform(3.5, 11.0), 2)
        monthly = money(principal * (rate / 1200) / (1 - (1 + rate / 1200) ** -term))
        risky = rng.random() < 0.12
        status = "current"
        k = 0
        due = add_months(start, 1)
        late_streak = 0
        while due <= ANCHOR and k < term:
            k += 1
            rpid += 1
            if risky and due > D(2023, 6, 1) and rng.random() < 0.5:
                paid, amt = (None, None) if rng.random() < 0.6 else (ds(due + TD(days=rng.randint(10, 45))), monthly)
                if paid is not None and D.fromisoformat(paid) > ANCHOR:
                    paid, amt = None, None
                late_streak += 1 if paid is None else 0
            else:
                paid, amt = ds(due - TD(days=rng.randint(0, 3))), monthly
                late_streak = 0
            reps.append([rpid, lid, ds(due), monthly, paid, amt])
            due = add_months(due, 1)
        if k >= term:
            status = "repaid"
        elif late_streak >= 3:
            status = "default"
        elif late_streak >= 1:
            status = "late"
        loans.append([lid, a[0], pick(rng, ["Personal", "Car", "Mortgage", "Business"], [50, 25, 10, 15]), principal, rate, term, ds(start), status])
    out["Loan"] = loans
    out["LoanRepayment"] = reps
    cards_out = []
    cid = 0
    for a in accts:
        if a[3] not in ("Checking", "CreditCard"):
            continue
        for _ in range(1 if rng.random() < 0.85 else 2):
            cid += 1
            issued = D.fromisoformat(a[5]) + TD(days=rng.randint(3, 600))
            if issued > ANCHOR:
                issued = D.fromisoformat(a[5]) + TD(days=5)
            blocked = ts(rand_time_on(rng, rand_date(rng, issued, ANCHOR))) if rng.random() < 0.07 and issued < ANCHOR else None
            cards_out.append([cid, a[0], "debit" if a[3] == "Checking" else "credit", pick(rng, ["Maestro", "Visa", "Mastercard"], [30, 40, 30]),
                              f"{rng.randint(0, 9999):04d}", ds(issued), ds(D(issued.year + 5, issued.month, 1) - TD(days=1)), blocked])
    out["Card"] = cards_out
    return out


# ---------------------------------------------------------------------------------------
# iot: building sensors and their readings (no declared keys)
# ---------------------------------------------------------------------------------------

IOT_DDL = """
CREATE TABLE sites (
  site_id INTEGER PRIMARY KEY,
  site_name TEXT NOT NULL,
  region TEXT NOT NULL,
  timezone TEXT NOT NULL,
  commissioned_on DATE NOT NULL
);
CREATE TABLE devices (
  device_id TEXT PRIMARY KEY,
  site_id INTEGER NOT NULL,
  device_type TEXT NOT NULL,
  model TEXT,
  firmware_version TEXT,
  installed_at TIMESTAMP NOT NULL,
  decommissioned_at TIMESTAMP,
  location_note TEXT
);
CREATE TABLE readings (
  reading_id INTEGER PRIMARY KEY,
  device_id TEXT NOT NULL,
  recorded_at TIMESTAMP NOT NULL,
  metric TEXT NOT NULL,
  value REAL,
  quality TEXT
);
CREATE TABLE alerts (
  alert_id INTEGER PRIMARY KEY,
  device_id TEXT NOT NULL,
  rule_name TEXT NOT NULL,
  severity TEXT NOT NULL,
  triggered_at TIMESTAMP NOT NULL,
  cleared_at TIMESTAMP,
  acknowledged_by TEXT,
  peak_value REAL
);
CREATE TABLE maintenance_log (
  log_id INTEGER PRIMARY KEY,
  device_id TEXT NOT NULL,
  performed_on DATE NOT NULL,
  technician TEXT,
  action TEXT NOT NULL,
  cost NUMERIC(8,2),
  notes TEXT
);
CREATE TABLE firmware_releases (
  version TEXT PRIMARY KEY,
  released_on DATE NOT NULL,
  is_stable BOOLEAN NOT NULL,
  changelog TEXT
);
"""


def gen_iot(rng):
    out = {}
    sites = [[1, "Berlin HQ", "EU", "Europe/Berlin", "2021-03-01"], [2, "Munich Lab", "EU", "Europe/Berlin", "2022-01-10"],
             [3, "Austin Plant", "NA", "America/Chicago", "2021-09-15"], [4, "Osaka Warehouse", "APAC", "Asia/Tokyo", "2023-02-20"],
             [5, "Leeds Office", "EU", "Europe/London", "2023-11-01"]]
    out["sites"] = sites
    out["firmware_releases"] = [["1.2.0", "2023-01-10", 1, "Initial fleet release"], ["1.3.0", "2023-06-02", 1, "Battery reporting"],
                                ["1.3.1", "2023-07-19", 1, "Fix clock drift"], ["1.4.0-beta", "2024-01-15", 0, "New radio stack (beta)"],
                                ["1.4.0", "2024-03-04", 1, "New radio stack"], ["1.4.2", "2024-05-13", 1, None]]
    types = [("temperature", "temp_c", "TH-200"), ("humidity", "humidity_pct", "TH-200"), ("power", "power_kw", "PM-10"), ("vibration", "vibration_mm_s", "VB-3"), ("co2", "co2_ppm", "AQ-5")]
    devices = []
    plan = [1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 1, 3]
    for i, s in enumerate(plan, 1):
        ty = types[(i * 3) % 5] if i > 5 else types[i - 1]
        inst = T(2024, 4, 1) - TD(days=rng.randint(30, 700), hours=rng.randint(0, 23))
        if i == 21:
            inst = T(2024, 5, 20, 9, 30)  # installed mid-window
        decom = T(2024, 5, 27, 14, 0) if i == 22 else None
        fw = pick(rng, ["1.3.1", "1.4.0", "1.4.2", "1.4.0-beta", None], [4, 8, 6, 2, 1])
        devices.append([f"dev-{i:04d}", s, ty[0], ty[2] if rng.random() > 0.1 else None, fw, ts(inst), ts(decom),
                        pick(rng, ["Server room", "Loading dock", "Floor 2 east", "Roof", "Cold store", None, None])])
    out["devices"] = devices
    readings = []
    rid = 0
    start = T(2024, 5, 1)
    hours = 40 * 24
    alerts = []
    for d in devices:
        ty = [t for t in types if t[0] == d[2]][0]
        inst = T.fromisoformat(d[5])
        dec = T.fromisoformat(d[6]) if d[6] else None
        outages = []
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            o = rng.randint(0, hours - 60)
            outages.append((o, o + rng.randint(3, 48)))
        base = {"temperature": 21, "humidity": 45, "power": 12, "vibration": 2.5, "co2": 600}[d[2]]
        if d[1] == 4 and d[2] == "temperature":
            base = 4  # cold store
        for h in range(hours):
            t = start + TD(hours=h)
            if t < inst or (dec is not None and t >= dec):
                continue
            if any(a <= h < b for a, b in outages):
                continue
            if rng.random() < 0.01:
                continue  # a single dropped reading
            daily = math.sin((t.hour - 8) / 24 * 2 * math.pi)
            if d[2] == "temperature":
                v = base + 2.5 * daily + 0.04 * (h / 24) + rng.gauss(0, 0.4)
            elif d[2] == "humidity":
                v = base - 8 * daily + rng.gauss(0, 3)
            elif d[2] == "power":
                wk = 0.4 if t.weekday() >= 5 else 1.0
                v = base * wk * (0.5 + 0.6 * max(daily, 0)) + rng.gauss(0, 0.8)
            elif d[2] == "vibration":
                v = base + rng.gauss(0, 0.3) + (3 if 300 <= h < 330 and d[0] == "dev-0004" else 0)
            else:
                v = base + 350 * max(daily, 0) * (0.3 if t.weekday() >= 5 else 1) + rng.gauss(0, 40)
            q = "ok"
            if rng.random() < 0.006:
                v = v * rng.choice([5, -3, 10])
                q = "suspect"
            if rng.random() < 0.004:
                v, q = None, "error"
            if rng.random() < 0.02 and q == "ok":
                q = None
            rid += 1
            readings.append([rid, d[0], ts(t + TD(seconds=rng.randint(0, 20))), ty[1], round(v, 3) if v is not None else None, q])
    readings.sort(key=lambda r: (r[2], r[1]))
    out["readings"] = [[i + 1] + r[1:] for i, r in enumerate(readings)]
    aid = 0
    rules = {"temperature": ("temp_high", "temp_c > 27"), "humidity": ("humidity_high", ""), "power": ("power_spike", ""), "vibration": ("vibration_high", ""), "co2": ("co2_high", "")}
    for d in devices:
        for _ in range(rng.randint(3, 25)):
            aid += 1
            t = T(2024, 3, 1) + TD(hours=rng.randint(0, 121 * 24))
            sev = pick(rng, ["info", "warning", "critical"], [30, 50, 20])
            cleared = t + TD(minutes=int(rng.expovariate(1 / 180)) + 5) if rng.random() > 0.08 else None
            if cleared is not None and cleared > T(2024, 6, 30, 23, 59):
                cleared = None
            ack = pick(rng, ["j.weber", "a.tanaka", "m.rossi", "ops-bot", None], [20, 15, 15, 20, 30])
            alerts.append([aid, d[0], rules[d[2]][0] if rng.random() > 0.2 else "device_offline", sev, ts(t), ts(cleared), ack, round(rng.uniform(1, 100), 2) if rng.random() > 0.3 else None])
    alerts.sort(key=lambda a: (a[4], a[1]))
    out["alerts"] = [[i + 1] + a[1:] for i, a in enumerate(alerts)]
    logs = []
    lid = 0
    for d in devices:
        for _ in range(rng.randint(0, 6)):
            lid += 1
            act = pick(rng, ["calibration", "battery_replacement", "firmware_update", "inspection", "sensor_replacement"], [30, 20, 20, 25, 5])
            cost = money({"calibration": 80, "battery_replacement": 25, "firmware_update": 0, "inspection": 40, "sensor_replacement": 310}[act] * rng.uniform(0.9, 1.3)) if rng.random() > 0.15 else None
            if act == "firmware_update":
                cost = 0.0 if rng.random() < 0.7 else None
            logs.append([lid, d[0], ds(rand_date(rng, D(2023, 6, 1), ANCHOR)), pick(rng, ["J. Weber", "A. Tanaka", "M. Rossi", "External vendor", None]), act, cost,
                         pick(rng, ["Replaced gasket", "Drift +0.8C corrected", "Updated to 1.4.2", "No issues found", "Mounting loose, fixed", None, None])])
    logs.sort(key=lambda x: (x[2], x[1]))
    out["maintenance_log"] = [[i + 1] + x[1:] for i, x in enumerate(logs)]
    return out


# ---------------------------------------------------------------------------------------
# clinic: outpatient appointments, diagnoses and claims (declared keys)
# ---------------------------------------------------------------------------------------

CLINIC_DDL = """
CREATE TABLE departments (
  department_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  building TEXT,
  floor INTEGER
);
CREATE TABLE insurance_plans (
  insurance_plan_id INTEGER PRIMARY KEY,
  payer_name TEXT NOT NULL,
  plan_type TEXT NOT NULL
);
CREATE TABLE providers (
  provider_id INTEGER PRIMARY KEY,
  full_name TEXT NOT NULL,
  credential TEXT,
  specialty TEXT NOT NULL,
  department_id INTEGER NOT NULL REFERENCES departments(department_id),
  npi TEXT NOT NULL,
  hired_on DATE NOT NULL,
  accepting_new_patients BOOLEAN NOT NULL
);
CREATE TABLE patients (
  patient_id INTEGER PRIMARY KEY,
  mrn TEXT NOT NULL,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  date_of_birth DATE NOT NULL,
  sex TEXT,
  postal_code TEXT,
  insurance_plan_id INTEGER REFERENCES insurance_plans(insurance_plan_id),
  primary_provider_id INTEGER REFERENCES providers(provider_id),
  registered_at TIMESTAMP NOT NULL,
  preferred_language TEXT,
  deceased_on DATE
);
CREATE TABLE appointments (
  appointment_id INTEGER PRIMARY KEY,
  patient_id INTEGER NOT NULL REFERENCES patients(patient_id),
  provider_id INTEGER NOT NULL REFERENCES providers(provider_id),
  visit_type TEXT NOT NULL,
  booked_at TIMESTAMP NOT NULL,
  scheduled_start TIMESTAMP NOT NULL,
  duration_minutes INTEGER NOT NULL,
  status TEXT NOT NULL,
  checked_in_at TIMESTAMP,
  cancelled_at TIMESTAMP,
  cancel_reason TEXT,
  copay NUMERIC(8,2)
);
CREATE TABLE diagnoses (
  diagnosis_id INTEGER PRIMARY KEY,
  appointment_id INTEGER NOT NULL REFERENCES appointments(appointment_id),
  icd10_code TEXT NOT NULL,
  description TEXT NOT NULL,
  is_primary BOOLEAN NOT NULL
);
CREATE TABLE prescriptions (
  prescription_id INTEGER PRIMARY KEY,
  appointment_id INTEGER NOT NULL REFERENCES appointments(appointment_id),
  drug_name TEXT NOT NULL,
  dose TEXT,
  days_supply INTEGER NOT NULL,
  refills INTEGER NOT NULL,
  is_controlled BOOLEAN NOT NULL
);
CREATE TABLE claims (
  claim_id INTEGER PRIMARY KEY,
  appointment_id INTEGER NOT NULL REFERENCES appointments(appointment_id),
  submitted_on DATE NOT NULL,
  billed_amount NUMERIC(10,2) NOT NULL,
  allowed_amount NUMERIC(10,2),
  paid_amount NUMERIC(10,2),
  status TEXT NOT NULL,
  denial_reason TEXT,
  paid_on DATE
);
"""


def gen_clinic(rng):
    out = {}
    out["departments"] = [[1, "Family Medicine", "A", 1], [2, "Pediatrics", "A", 2], [3, "Cardiology", "B", 3], [4, "Dermatology", "B", 2],
                          [5, "Orthopedics", "C", 1], [6, "Behavioral Health", "C", 2], [7, "Endocrinology", "B", 4], [8, "Telehealth", None, None]]
    out["insurance_plans"] = [[1, "BlueShield", "PPO"], [2, "BlueShield", "HMO"], [3, "Aetna", "PPO"], [4, "United", "HMO"], [5, "United", "PPO"],
                              [6, "Medicare", "Medicare"], [7, "State Medicaid", "Medicaid"], [8, "Cigna", "PPO"], [9, "Kaiser", "HMO"], [10, "Humana", "Medicare Advantage"],
                              [11, "Self-pay", "Self-pay"], [12, "Oscar", "EPO"]]
    specs = {1: "Family Medicine", 2: "Pediatrics", 3: "Cardiology", 4: "Dermatology", 5: "Orthopedic Surgery", 6: "Psychiatry", 7: "Endocrinology", 8: "Family Medicine"}
    provs = []
    dept_plan = [1] * 10 + [2] * 6 + [3] * 5 + [4] * 4 + [5] * 5 + [6] * 5 + [7] * 3 + [8] * 2
    for i, d in enumerate(dept_plan, 1):
        f, l = person(rng)
        cred = pick(rng, ["MD", "DO", "NP", "PA"], [60, 15, 15, 10]) if d != 6 or rng.random() < 0.5 else pick(rng, ["MD", "PhD", "LCSW"])
        provs.append([i, f"{f} {l}", cred if rng.random() > 0.05 else None, specs[d] if cred not in ("LCSW", "PhD") else "Psychology", d, f"1{rng.randint(100000000, 999999999)}",
                      ds(rand_date(rng, D(2008, 1, 1), D(2023, 10, 1))), 1 if rng.random() > 0.25 else 0])
    out["providers"] = provs
    pats = []
    for i in range(1, 2501):
        f, l = person(rng)
        dob = rand_date(rng, D(1935, 1, 1), D(2023, 6, 1))
        if rng.random() < 0.2:
            dob = rand_date(rng, D(2008, 1, 1), D(2023, 6, 1))
        reg = rand_time_on(rng, rand_date(rng, D(2018, 1, 1), D(2024, 6, 1)), BUSINESS_HOURS)
        age = (ANCHOR - dob).days / 365.25
        plan = pick(rng, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [12, 8, 10, 9, 7, 1, 12, 6, 6, 1, 6, 4])
        if age >= 65:
            plan = pick(rng, [6, 10, 1, 3])
        if rng.random() < 0.05:
            plan = None
        pcp = rng.randint(1, 10) if age >= 18 else rng.randint(11, 16)
        if rng.random() < 0.12:
            pcp = None
        pats.append([i, f"MRN{rng.randint(1000000, 9999999)}", f, l, ds(dob), pick(rng, ["F", "M", None], [51, 47, 2]), f"{rng.randint(94000, 94999)}" if rng.random() > 0.06 else None,
                     plan, pcp, ts(reg), pick(rng, ["English", "Spanish", "Chinese", "Vietnamese", None], [60, 20, 6, 4, 10]),
                     ds(rand_date(rng, D(2023, 1, 1), D(2024, 6, 1))) if age > 75 and rng.random() < 0.08 else None])
    pats[300][2], pats[300][3], pats[300][4] = pats[299][2], pats[299][3], pats[299][4]  # a likely duplicate registration
    out["patients"] = pats
    appts, dx, rx, claims = [], [], [], []
    aid = 0
    codes = {1: [("I10", "Essential (primary) hypertension"), ("E78.5", "Hyperlipidemia, unspecified"), ("J06.9", "Acute upper respiratory infection, unspecified"),
                 ("Z00.00", "General adult medical examination"), ("M54.5", "Low back pain")],
             2: [("Z00.129", "Routine child health examination"), ("J02.9", "Acute pharyngitis, unspecified"), ("H66.90", "Otitis media, unspecified")],
             3: [("I25.10", "Atherosclerotic heart disease"), ("I48.91", "Unspecified atrial fibrillation"), ("I10", "Essential (primary) hypertension")],
             4: [("L70.0", "Acne vulgaris"), ("L40.0", "Psoriasis vulgaris"), ("D22.9", "Melanocytic nevi, unspecified")],
             5: [("M17.11", "Unilateral primary osteoarthritis, right knee"), ("S83.511A", "Sprain of ACL of right knee"), ("M54.5", "Low back pain")],
             6: [("F32.9", "Major depressive disorder, single episode"), ("F41.1", "Generalized anxiety disorder")],
             7: [("E11.9", "Type 2 diabetes mellitus without complications"), ("E03.9", "Hypothyroidism, unspecified")],
             8: [("J06.9", "Acute upper respiratory infection, unspecified"), ("F41.1", "Generalized anxiety disorder"), ("E11.9", "Type 2 diabetes mellitus without complications")]}
    drugs = {"I10": ("Lisinopril", "10 mg"), "E78.5": ("Atorvastatin", "20 mg"), "J02.9": ("Amoxicillin", "500 mg"), "H66.90": ("Amoxicillin", "250 mg/5 mL"),
             "I48.91": ("Apixaban", "5 mg"), "L70.0": ("Tretinoin cream", "0.025%"), "F32.9": ("Sertraline", "50 mg"), "F41.1": ("Escitalopram", "10 mg"),
             "E11.9": ("Metformin", "500 mg"), "E03.9": ("Levothyroxine", "50 mcg"), "M54.5": ("Ibuprofen", "600 mg"), "M17.11": ("Oxycodone", "5 mg")}
    prov_by_dept = {}
    for p in provs:
        prov_by_dept.setdefault(p[4], []).append(p)
    pat_w = [rng.lognormvariate(0, 0.9) for _ in pats]
    day = D(2023, 1, 2)
    while day <= D(2024, 7, 31):
        if day.weekday() >= 5:
            day += TD(days=1)
            continue
        n = int(rng.gauss(17, 3) * (1.25 if day.month in (1, 2, 12) else 0.9 if day.month in (7, 8) else 1))
        for _ in range(max(n, 0)):
            p = rng.choices(pats, pat_w)[0]
            if p[11] is not None and D.fromisoformat(p[11]) <= day:
                continue
            age = (day - D.fromisoformat(p[4])).days / 365.25
            dept = 2 if age < 18 and rng.random() < 0.8 else pick(rng, [1, 3, 4, 5, 6, 7, 8], [40, 10, 10, 10, 12, 8, 10])
            prov = pick(rng, prov_by_dept[dept])
            start = T.combine(day, dt.time(pick(rng, [8, 9, 10, 11, 13, 14, 15, 16]), pick(rng, [0, 15, 30, 45])))
            dur = pick(rng, [15, 20, 30, 45, 60], [20, 30, 35, 10, 5])
            vtype = "telehealth" if dept == 8 else pick(rng, ["new_patient", "follow_up", "annual_physical", "urgent"], [20, 50, 15, 15])
            lead = 0 if vtype == "urgent" else int(rng.expovariate(1 / 18))
            booked = start - TD(days=lead, hours=rng.randint(1, 8))
            if booked.date() > ANCHOR:
                continue
            aid += 1
            if start.date() > ANCHOR:
                status = "scheduled" if rng.random() > 0.1 else "cancelled"
            else:
                status = pick(rng, ["completed", "no_show", "cancelled"], [78, 8 + (6 if lead > 30 else 0), 12])
            cancelled = None
            reason = None
            if status == "cancelled":
                cancelled = booked + (start - booked) * rng.uniform(0.1, 0.99)
                if cancelled.date() > ANCHOR:
                    cancelled = T.combine(ANCHOR, dt.time(10, 0))
                reason = pick(rng, ["patient request", "provider unavailable", "rescheduled", "weather", None], [45, 15, 25, 5, 10])
            checkin = start + TD(minutes=rng.randint(-20, 25)) if status == "completed" and rng.random() > 0.04 else None
            copay = money(pick(rng, [0, 10, 20, 25, 30, 40, 50])) if status == "completed" and p[7] not in (None, 11) and rng.random() > 0.1 else None
            appts.append([aid, p[0], prov[0], vtype, ts(booked), ts(start), dur, status, ts(checkin), ts(cancelled), reason, copay])
            if status == "completed":
                cl = codes[dept]
                chosen = rng.sample(cl, min(len(cl), pick(rng, [1, 1, 1, 2, 2, 3])))
                for j, (code, desc) in enumerate(chosen):
                    dx.append([len(dx) + 1, aid, code, desc, 1 if j == 0 else 0])
                    if code in drugs and rng.random() < 0.45:
                        dname, dose = drugs[code]
                        rx.append([len(rx) + 1, aid, dname, dose if rng.random() > 0.05 else None, pick(rng, [7, 10, 14, 30, 90]), pick(rng, [0, 0, 1, 2, 3, 5]), 1 if dname == "Oxycodone" else 0])
                if p[7] is not None and p[7] != 11 and rng.random() > 0.03:
                    sub = start.date() + TD(days=rng.randint(1, 10))
                    if sub <= ANCHOR:
                        billed = money({15: 110, 20: 150, 30: 210, 45: 290, 60: 380}[dur] * rng.uniform(0.9, 1.15) + (120 if dept in (3, 5) else 0))
                        r = rng.random()
                        st = "denied" if r < 0.09 else "pending" if (ANCHOR - sub).days < 30 and r < 0.5 else "paid"
                        allowed = money(billed * rng.uniform(0.45, 0.8)) if st != "denied" else None
                        paid = money(allowed - (copay or 0)) if st == "paid" else None
                        paid_on = ds(sub + TD(days=rng.randint(7, 45))) if st == "paid" else None
                        if paid_on is not None and paid_on > ds(ANCHOR):
                            st, paid, paid_on = "pending", None, None
                        claims.append([len(claims) + 1, aid, ds(sub), billed, allowed if st != "pending" or rng.random() < 0.3 else None, paid, st,
                                       pick(rng, ["CO-16 missing information", "CO-50 not medically necessary", "CO-197 no prior authorization", "CO-29 timely filing"]) if st == "denied" else None, paid_on])
        day += TD(days=1)
    out["appointments"] = appts
    out["diagnoses"] = dx
    out["prescriptions"] = rx
    out["claims"] = claims
    return out


# ---------------------------------------------------------------------------------------
# school: a small college's course enrolment (declared keys)
# ---------------------------------------------------------------------------------------

SCHOOL_DDL = """
CREATE TABLE departments (
  department_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  faculty TEXT NOT NULL
);
CREATE TABLE instructors (
  instructor_id INTEGER PRIMARY KEY,
  full_name TEXT NOT NULL,
  department_id INTEGER NOT NULL REFERENCES departments(department_id),
  title TEXT NOT NULL,
  hire_date DATE NOT NULL,
  email TEXT,
  is_adjunct BOOLEAN NOT NULL
);
CREATE TABLE courses (
  course_id INTEGER PRIMARY KEY,
  course_code TEXT NOT NULL,
  title TEXT NOT NULL,
  department_id INTEGER NOT NULL REFERENCES departments(department_id),
  credits INTEGER NOT NULL,
  level INTEGER NOT NULL,
  prerequisite_course_id INTEGER REFERENCES courses(course_id),
  is_online BOOLEAN NOT NULL
);
CREATE TABLE terms (
  term_id INTEGER PRIMARY KEY,
  term_name TEXT NOT NULL,
  season TEXT NOT NULL,
  academic_year TEXT NOT NULL,
  start_date DATE NOT NULL,
  end_date DATE NOT NULL
);
CREATE TABLE students (
  student_id INTEGER PRIMARY KEY,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  email TEXT,
  date_of_birth DATE,
  entry_year INTEGER NOT NULL,
  major_department_id INTEGER REFERENCES departments(department_id),
  is_international BOOLEAN NOT NULL,
  first_generation BOOLEAN,
  graduated_on DATE,
  withdrawn_on DATE
);
CREATE TABLE sections (
  section_id INTEGER PRIMARY KEY,
  course_id INTEGER NOT NULL REFERENCES courses(course_id),
  term_id INTEGER NOT NULL REFERENCES terms(term_id),
  section_number TEXT NOT NULL,
  instructor_id INTEGER REFERENCES instructors(instructor_id),
  capacity INTEGER NOT NULL,
  meeting_days TEXT,
  room TEXT
);
CREATE TABLE enrollments (
  enrollment_id INTEGER PRIMARY KEY,
  student_id INTEGER NOT NULL REFERENCES students(student_id),
  section_id INTEGER NOT NULL REFERENCES sections(section_id),
  enrolled_at TIMESTAMP NOT NULL,
  dropped_at TIMESTAMP,
  grade TEXT,
  grade_points NUMERIC(3,2)
);
CREATE TABLE tuition_payments (
  payment_id INTEGER PRIMARY KEY,
  student_id INTEGER NOT NULL REFERENCES students(student_id),
  term_id INTEGER NOT NULL REFERENCES terms(term_id),
  amount NUMERIC(10,2) NOT NULL,
  paid_on DATE NOT NULL,
  method TEXT NOT NULL,
  is_scholarship BOOLEAN NOT NULL
);
"""


def gen_school(rng):
    out = {}
    depts = [[1, "Computer Science", "Science & Engineering"], [2, "Mathematics", "Science & Engineering"], [3, "Physics", "Science & Engineering"],
             [4, "Economics", "Social Sciences"], [5, "Psychology", "Social Sciences"], [6, "English", "Humanities"], [7, "History", "Humanities"], [8, "Biology", "Science & Engineering"]]
    out["departments"] = depts
    instr = []
    for i in range(1, 81):
        f, l = person(rng)
        d = (i - 1) % 8 + 1
        title = pick(rng, ["Lecturer", "Assistant Professor", "Associate Professor", "Professor"], [30, 30, 25, 15])
        instr.append([i, f"{f} {l}", d, title, ds(rand_date(rng, D(1998, 1, 1), D(2023, 8, 1))), email_of(f, l, i, "college.test") if rng.random() > 0.05 else None,
                      1 if title == "Lecturer" and rng.random() < 0.6 else 0])
    out["instructors"] = instr
    prefixes = {1: "CS", 2: "MATH", 3: "PHYS", 4: "ECON", 5: "PSYC", 6: "ENGL", 7: "HIST", 8: "BIO"}
    topic = {1: ["Intro to Programming", "Data Structures", "Algorithms", "Operating Systems", "Databases", "Machine Learning", "Computer Networks", "Compilers", "Web Development", "Security"],
             2: ["Calculus I", "Calculus II", "Linear Algebra", "Probability", "Real Analysis", "Abstract Algebra", "Statistics", "Numerical Methods"],
             3: ["Mechanics", "Electromagnetism", "Quantum Physics", "Thermodynamics", "Optics", "Astrophysics"],
             4: ["Principles of Economics", "Microeconomics", "Macroeconomics", "Econometrics", "Behavioral Economics", "Public Finance", "Game Theory"],
             5: ["Intro to Psychology", "Cognitive Psychology", "Social Psychology", "Research Methods", "Developmental Psychology", "Neuroscience"],
             6: ["Academic Writing", "Shakespeare", "Modern Poetry", "The Novel", "Creative Writing"],
             7: ["World History", "Medieval Europe", "American History", "History of Science", "Modern Asia"],
             8: ["General Biology", "Genetics", "Cell Biology", "Ecology", "Microbiology", "Evolution"]}
    courses = []
    cid = 0
    for d, ts_ in topic.items():
        prev = None
        for k, t in enumerate(ts_):
            cid += 1
            level = min(400, 100 * (1 + k * 4 // len(ts_)))
            prereq = prev if k > 0 and k < 5 and rng.random() < 0.9 else None
            courses.append([cid, f"{prefixes[d]}{level + k % 10 * 1 + 1:03d}", t, d, pick(rng, [3, 3, 3, 4, 2]), level, prereq, 1 if rng.random() < 0.12 else 0])
            prev = cid
    out["courses"] = courses
    terms = [[1, "Fall 2021", "Fall", "2021-22", "2021-09-01", "2021-12-17"], [2, "Spring 2022", "Spring", "2021-22", "2022-01-18", "2022-05-13"],
             [3, "Fall 2022", "Fall", "2022-23", "2022-08-31", "2022-12-16"], [4, "Spring 2023", "Spring", "2022-23", "2023-01-17", "2023-05-12"],
             [5, "Summer 2023", "Summer", "2022-23", "2023-06-05", "2023-08-04"], [6, "Fall 2023", "Fall", "2023-24", "2023-08-30", "2023-12-15"],
             [7, "Spring 2024", "Spring", "2023-24", "2024-01-16", "2024-05-10"], [8, "Fall 2024", "Fall", "2024-25", "2024-09-04", "2024-12-20"]]
    out["terms"] = terms
    students = []
    for i in range(1, 1001):
        f, l = person(rng)
        entry = pick(rng, [2018, 2019, 2020, 2021, 2022, 2023], [5, 10, 18, 22, 23, 22])
        major = rng.randint(1, 8) if rng.random() > 0.15 or entry < 2022 else None
        grad = D(entry + 4, 5, rng.choice([10, 12, 13])) if entry <= 2020 and rng.random() < 0.85 else None
        wd = rand_date(rng, D(max(entry, 2021), 10, 1), D(2024, 5, 1)) if grad is None and rng.random() < 0.1 else None
        students.append([i, f, l, email_of(f, l, i, "students.college.test") if rng.random() > 0.02 else None,
                         ds(D(entry - 18, 1, 1) + TD(days=rng.randint(-400, 400))) if rng.random() > 0.03 else None, entry, major,
                         1 if rng.random() < 0.14 else 0, pick(rng, [1, 0, None], [25, 60, 15]), ds(grad), ds(wd)])
    out["students"] = students
    sections = []
    sid = 0
    rooms = ["SCI 101", "SCI 204", "HUM 12", "HUM 30", "LIB 2", "ENG 110", "ENG 220", None]
    for t in terms:
        for c in courses:
            if t[2] == "Summer" and rng.random() < 0.8:
                continue
            if c[5] >= 300 and rng.random() < 0.35:
                continue
            for s in range(1 if c[5] > 100 else pick(rng, [1, 2, 2, 3])):
                sid += 1
                inst = pick(rng, [x for x in instr if x[2] == c[3]]) if rng.random() > 0.05 or t[0] == 8 else None
                if t[0] == 8 and rng.random() < 0.3:
                    inst = None
                sections.append([sid, c[0], t[0], f"{s + 1:02d}", inst[0] if inst else None, pick(rng, [25, 30, 40, 60, 120]) if c[5] == 100 else pick(rng, [15, 20, 25, 30]),
                                 pick(rng, ["MWF", "TTh", "MW", "F", None], [35, 35, 15, 5, 10]) if not c[7] else None, pick(rng, rooms) if not c[7] else None])
    out["sections"] = sections
    grade_scale = [("A", 4.0), ("A-", 3.7), ("B+", 3.3), ("B", 3.0), ("B-", 2.7), ("C+", 2.3), ("C", 2.0), ("C-", 1.7), ("D", 1.0), ("F", 0.0)]
    enr = []
    pays = []
    by_term = {}
    for s in sections:
        by_term.setdefault(s[2], []).append(s)
    course_by = {c[0]: c for c in courses}
    ability = {st[0]: rng.gauss(0, 0.7) for st in students}
    for t in terms:
        tstart = D.fromisoformat(t[4])
        tend = D.fromisoformat(t[5])
        year = tstart.year if t[2] != "Spring" else tstart.year - 1
        secs = by_term[t[0]]
        for st in students:
            if st[5] > year or (st[9] and D.fromisoformat(st[9]) < tstart) or (st[10] and D.fromisoformat(st[10]) < tstart):
                continue
            if t[2] == "Summer" and rng.random() > 0.15:
                continue
            if rng.random() < 0.08:
                continue  # a term off (gap)
            k = pick(rng, [2, 3, 3, 4]) if t[2] != "Summer" else 1
            yr_level = min(400, 100 * (year - st[5] + 1))
            cand = [s for s in secs if course_by[s[1]][5] <= yr_level + 100]
            if not cand:
                continue
            chosen = rng.sample(cand, min(k, len(cand)))
            for s in chosen:
                if len(enr) >= 17000:
                    break
                when = T.combine(tstart - TD(days=rng.randint(1, 60)), dt.time(rng.randint(7, 23), rng.randint(0, 59)))
                dropped = None
                grade = None
                gp = None
                if rng.random() < 0.07:
                    dropped = when + TD(days=rng.randint(1, 70))
                    if (dropped.date() - tstart).days > 28 and tend < ANCHOR:
                        grade = "W"
                    if dropped.date() > ANCHOR:
                        dropped = None
                if dropped is None and tend < ANCHOR:
                    sc = 3.0 + ability[st[0]] - (course_by[s[1]][5] - 100) / 600 + rng.gauss(0, 0.6)
                    g = min(grade_scale, key=lambda x: abs(x[1] - sc))
                    grade, gp = g
                    if rng.random() < 0.01:
                        grade, gp = "I", None  # incomplete
                if t[0] == 8:
                    when = T.combine(D(2024, 4, 1) + TD(days=rng.randint(0, 85)), dt.time(rng.randint(7, 23), rng.randint(0, 59)))
                enr.append([len(enr) + 1, st[0], s[0], ts(when), ts(dropped), grade, gp])
            if t[0] != 8 and t[2] != "Summer":
                total = money(pick(rng, [4200, 4800, 5250]) * (1.6 if st[7] else 1.0))
                if rng.random() < 0.2:
                    pays.append([len(pays) + 1, st[0], t[0], money(total * pick(rng, [0.25, 0.5])), ds(tstart - TD(days=20)), "scholarship", 1])
                    total = money(total * 0.5)
                for part in ([total] if rng.random() < 0.6 else [money(total / 2), money(total - money(total / 2))]):
                    pays.append([len(pays) + 1, st[0], t[0], part, ds(tstart - TD(days=rng.randint(-40, 30))), pick(rng, ["card", "bank_transfer", "loan"], [30, 50, 20]), 0])
    out["enrollments"] = enr
    out["tuition_payments"] = pays
    return out


# ---------------------------------------------------------------------------------------
# music: a streaming service's listening data (no declared keys)
# ---------------------------------------------------------------------------------------

MUSIC_DDL = """
CREATE TABLE users (
  user_id INTEGER PRIMARY KEY,
  username TEXT NOT NULL,
  country TEXT,
  birth_year INTEGER,
  signup_date DATE NOT NULL,
  subscription_tier TEXT NOT NULL,
  referrer_user_id INTEGER,
  premium_since DATE,
  premium_until DATE
);
CREATE TABLE artists (
  artist_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  country TEXT,
  primary_genre TEXT,
  formed_year INTEGER
);
CREATE TABLE albums (
  album_id INTEGER PRIMARY KEY,
  artist_id INTEGER NOT NULL,
  title TEXT NOT NULL,
  release_date DATE,
  album_type TEXT NOT NULL,
  label TEXT
);
CREATE TABLE tracks (
  track_id INTEGER PRIMARY KEY,
  album_id INTEGER NOT NULL,
  title TEXT NOT NULL,
  duration_ms INTEGER NOT NULL,
  explicit BOOLEAN NOT NULL,
  track_number INTEGER NOT NULL,
  isrc TEXT
);
CREATE TABLE plays (
  play_id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL,
  track_id INTEGER NOT NULL,
  played_at TIMESTAMP NOT NULL,
  ms_played INTEGER NOT NULL,
  device_type TEXT,
  source TEXT,
  skipped BOOLEAN NOT NULL,
  shuffle BOOLEAN NOT NULL
);
CREATE TABLE playlists (
  playlist_id INTEGER PRIMARY KEY,
  owner_user_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  is_public BOOLEAN NOT NULL,
  is_collaborative BOOLEAN NOT NULL,
  created_at TIMESTAMP NOT NULL,
  description TEXT
);
CREATE TABLE playlist_tracks (
  playlist_id INTEGER NOT NULL,
  track_id INTEGER NOT NULL,
  position INTEGER NOT NULL,
  added_at TIMESTAMP NOT NULL,
  PRIMARY KEY (playlist_id, position)
);
CREATE TABLE follows (
  user_id INTEGER NOT NULL,
  artist_id INTEGER NOT NULL,
  followed_at TIMESTAMP NOT NULL,
  unfollowed_at TIMESTAMP,
  PRIMARY KEY (user_id, artist_id)
);
"""


def gen_music(rng):
    out = {}
    genres = ["pop", "hip hop", "rock", "electronic", "indie", "jazz", "classical", "latin", "r&b", "metal", "k-pop", None]
    w1 = ["Neon", "Velvet", "Paper", "Midnight", "Golden", "Static", "Wild", "Silver", "Crystal", "Lunar", "Echo", "Ghost"]
    w2 = ["Tigers", "Lights", "Harbor", "Sirens", "Parade", "Wolves", "Radio", "Gardens", "Machines", "Kids", "Hearts", "Rivers"]
    artists = []
    for i in range(1, 151):
        name = f"{pick(rng, w1)} {pick(rng, w2)}" if rng.random() < 0.6 else f"{pick(rng, FIRST_NAMES)} {pick(rng, LAST_NAMES)}"
        artists.append([i, name, pick(rng, ["US", "GB", "SE", "KR", "BR", "DE", "FR", "CA", None], [30, 15, 8, 8, 8, 8, 6, 7, 10]), pick(rng, genres, [20, 14, 14, 10, 10, 4, 3, 7, 7, 4, 4, 3]),
                        rng.randint(1965, 2021) if rng.random() > 0.2 else None])
    artists[40][1] = "The " + artists[39][1]  # 'The X' and 'X'
    artists[88][1] = artists[87][1].upper()
    out["artists"] = artists
    albums, tracks = [], []
    labels = ["Northside Records", "Blue Hour Music", "Independent", "Sonic Loop", None]
    tw = ["Love", "Night", "Fire", "Home", "Dream", "Run", "Stay", "Gold", "Rain", "Alive", "Summer", "Ocean", "Ghost", "Heart", "Youth"]
    for a in artists:
        for _ in range(rng.randint(1, 5)):
            aid = len(albums) + 1
            atype = pick(rng, ["album", "single", "ep", "compilation"], [40, 35, 20, 5])
            rel = rand_date(rng, D(max(a[4] or 1990, 1990), 1, 1), D(2024, 6, 28)) if rng.random() > 0.03 else None
            albums.append([aid, a[0], f"{pick(rng, tw)} {pick(rng, tw)}" if rng.random() > 0.3 else pick(rng, tw), ds(rel), atype, pick(rng, labels)])
            n = {"album": rng.randint(8, 14), "single": rng.randint(1, 2), "ep": rng.randint(4, 6), "compilation": rng.randint(12, 18)}[atype]
            for k in range(1, n + 1):
                tid = len(tracks) + 1
                tracks.append([tid, aid, f"{pick(rng, tw)}{pick(rng, ['', '', ' (Remix)', ' - Live', ' (feat. ' + pick(rng, FIRST_NAMES) + ')', ' Again'])}",
                               int(rng.gauss(205000, 45000)), 1 if rng.random() < 0.18 else 0, k, f"US{rng.randint(1000000000, 9999999999)}" if rng.random() > 0.04 else None])
    out["albums"] = albums
    out["tracks"] = tracks
    users = []
    for i in range(1, 1501):
        signup = seasonal_date(rng, D(2021, 1, 1), D(2024, 6, 25), [1, .8, .8, .8, .8, .8, .8, .8, .9, .9, .9, 1])
        tier = pick(rng, ["free", "premium", "family", "student"], [55, 30, 8, 7])
        ps = rand_date(rng, signup, ANCHOR) if tier != "free" else (rand_date(rng, signup, D(2024, 3, 1)) if rng.random() < 0.15 and signup < D(2024, 3, 1) else None)
        pu = rand_date(rng, ps, ANCHOR) if tier == "free" and ps is not None else None
        users.append([i, f"{pick(rng, ['music', 'beat', 'vinyl', 'tune', 'bass', 'lofi'])}_{pick(rng, FIRST_NAMES).lower()}{rng.randint(1, 999)}",
                      pick(rng, ["US", "GB", "SE", "DE", "BR", "MX", "KR", None], [35, 12, 8, 10, 12, 8, 7, 8]), rng.randint(1960, 2008) if rng.random() > 0.25 else None,
                      ds(signup), tier, rng.randint(1, i - 1) if i > 30 and rng.random() < 0.1 else None, ds(ps), ds(pu)])
    out["users"] = users
    art_pop = zipf_weights(len(artists), 1.05)
    order = list(range(len(artists)))
    rng.shuffle(order)
    aw = {artists[i][0]: art_pop[order[i]] for i in range(len(artists))}
    tracks_by_artist = {}
    album_artist = {al[0]: al[1] for al in albums}
    for t in tracks:
        tracks_by_artist.setdefault(album_artist[t[1]], []).append(t)
    art_ids = [a[0] for a in artists]
    art_w = [aw[a] for a in art_ids]
    plays = []
    # tracks of albums released in the 30 days before a given day (new-release discovery)
    album_release = {al[0]: al[3] for al in albums}
    recent = {}
    for t in tracks:
        rel = album_release[t[1]]
        if rel is not None and rel >= "2023-12-01":
            r = D.fromisoformat(rel)
            for k in range(30):
                recent.setdefault(r + TD(days=k), []).append(t)
    for u in users:
        w = rng.lognormvariate(0, 0.9)
        if rng.random() > 0.5:
            continue  # dormant account: no listening this year
        fav = rng.choices(art_ids, art_w, k=4)
        day = max(D.fromisoformat(u[4]), D(2024, 1, 1)) + TD(days=rng.randint(0, 30))
        stop = ANCHOR if rng.random() > 0.25 else rand_date(rng, day, ANCHOR) if day < ANCHOR else ANCHOR
        dev_pref = pick(rng, ["mobile", "desktop", "web", "smart_speaker", "car", None], [50, 20, 8, 8, 8, 6])
        while day <= stop and len(plays) < 17200:
            # listening days come in streaks separated by gaps
            for _ in range(rng.randint(1, 4)):
                t0 = rand_time_on(rng, day, EVENING_HOURS)
                dev = dev_pref if rng.random() < 0.7 else pick(rng, ["mobile", "desktop", "web", "smart_speaker", "car", None], [50, 20, 8, 8, 8, 6])
                src = pick(rng, ["playlist", "album", "search", "radio", "artist_page", None], [40, 20, 12, 15, 8, 5])
                shuf = 1 if src == "playlist" and rng.random() < 0.6 else 0
                for _ in range(rng.randint(1, 3)):
                    if day in recent and rng.random() < 0.12:
                        tr = pick(rng, recent[day])
                    else:
                        a = pick(rng, fav) if rng.random() < 0.7 else rng.choices(art_ids, art_w)[0]
                        tr = pick(rng, tracks_by_artist[a])
                    skipped = 1 if rng.random() < 0.22 else 0
                    ms = rng.randint(2000, 29000) if skipped else (tr[3] if rng.random() < 0.85 else rng.randint(30000, max(tr[3], 30001)))
                    plays.append([u[0], tr[0], ts(t0), ms, dev, src, skipped, shuf])
                    t0 += TD(milliseconds=ms + rng.randint(500, 4000))
                day += TD(days=1)
                if day > stop:
                    break
            day += TD(days=int(rng.expovariate(w / 55)) + 1)
    plays.sort(key=lambda p: (p[2], p[0]))
    out["plays"] = [[i + 1] + p for i, p in enumerate(plays)]
    pls, pts = [], []
    names = ["Chill Vibes", "Workout", "Road Trip", "Focus", "Sunday Morning", "Party", "Sad Songs", "Throwbacks", "Summer 2024", "My Playlist #1"]
    for i in range(1, 401):
        u = pick(rng, users)
        created = rand_time_on(rng, rand_date(rng, D.fromisoformat(u[4]), ANCHOR), EVENING_HOURS)
        pls.append([i, u[0], pick(rng, names), 1 if rng.random() < 0.6 else 0, 1 if rng.random() < 0.07 else 0, ts(created), pick(rng, ["songs for the gym", "late night", None, None, None])])
        n = rng.choice([0, 3, 5, 8, 10, 12, 15, 20, 25])
        tlist = rng.sample(tracks, n)
        for pos, t in enumerate(tlist, 1):
            add = created + TD(days=rng.randint(0, 60), minutes=rng.randint(0, 600))
            if add > T(2024, 6, 30, 23, 0):
                add = T(2024, 6, 30, 23, 0) - TD(minutes=pos)
            pts.append([i, t[0], pos, ts(add)])
    out["playlists"] = pls
    out["playlist_tracks"] = pts
    fol = []
    seen = set()
    for _ in range(2600):
        u = pick(rng, users)
        a = rng.choices(art_ids, art_w)[0]
        if (u[0], a) in seen:
            continue
        seen.add((u[0], a))
        ft = rand_time_on(rng, rand_date(rng, D.fromisoformat(u[4]), ANCHOR))
        uf = ft + TD(days=rng.randint(1, 300)) if rng.random() < 0.1 else None
        if uf is not None and uf.date() > ANCHOR:
            uf = None
        fol.append([u[0], a, ts(ft), ts(uf)])
    out["follows"] = fol
    return out


# ---------------------------------------------------------------------------------------

DATABASES = [
    ("shop", 101, SHOP_DDL, gen_shop, "An online retailer's customers, product catalogue, orders with line items, returns and product reviews."),
    ("saas_billing", 202, SAAS_DDL, gen_saas, "Subscription billing for a B2B software company: accounts, plans, subscriptions, invoices, line items, card payment attempts and daily API usage."),
    ("product_analytics", 303, ANALYTICS_DDL, gen_analytics, "Raw product event stream from a shopping app and website, with users, A/B experiment assignments and push notifications."),
    ("helpdesk", 404, HELPDESK_DDL, gen_helpdesk, "A customer support desk's tickets, comments, tags, agent groups, requester organizations and satisfaction ratings."),
    ("hr", 505, HR_DDL, gen_hr, "Human resources and payroll: employees with their managers and departments, salary history, monthly payslips, time-off requests and annual reviews."),
    ("logistics", 606, LOGISTICS_DDL, gen_logistics, "Parcel shipments from European warehouses with carriers, per-parcel dimensions, carrier tracking scans and rate cards."),
    ("flights", 707, FLIGHTS_DDL, gen_flights, "Every 2023 departure from the three New York City airports, with airlines, destination airports, aircraft and 3-hourly airport weather."),
    ("film_rental", 808, FILM_DDL, gen_film, "A two-store DVD rental chain: film catalogue with actors and categories, inventory copies, customers, rentals and payments."),
    ("marketing", 909, MARKETING_DDL, gen_marketing, "Marketing data mart in star-schema form: daily ad spend and email sends by campaign and channel, attributed conversions, and a slowly changing customer dimension."),
    ("bank", 1001, BANK_DDL, gen_bank, "A retail bank's branches, customers, accounts, posted ledger transactions, cards, loans with repayment schedules and daily FX rates."),
    ("iot", 1101, IOT_DDL, gen_iot, "Building sensor telemetry: sites, devices, hourly readings, threshold alerts, maintenance visits and firmware releases."),
    ("clinic", 1201, CLINIC_DDL, gen_clinic, "An outpatient clinic network's patients, providers, appointments, diagnoses, prescriptions and insurance claims."),
    ("school", 1301, SCHOOL_DDL, gen_school, "A college's students, departments, instructors, courses with prerequisites, term sections, enrolments with grades and tuition payments."),
    ("music", 1401, MUSIC_DDL, gen_music, "A music streaming service's listeners, artists, albums, tracks, individual plays, playlists and artist follows."),
]


def table_order(ddl):
    names = []
    for line in ddl.splitlines():
        line = line.strip()
        if line.upper().startswith("CREATE TABLE"):
            names.append(line.split()[2])
    return names


def build(outdir, db_id, seed, ddl, fn):
    rng = random.Random(seed)
    data = fn(rng)
    path = os.path.join(outdir, f"{db_id}.sqlite")
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    con.executescript(ddl)
    names = table_order(ddl)
    missing = [n for n in names if n not in data]
    extra = [n for n in data if n not in names]
    if missing or extra:
        raise SystemExit(f"{db_id}: tables without rows {missing}, rows without table {extra}")
    total = 0
    for name in names:
        rows = data[name]
        if not rows:
            continue
        width = len(rows[0])
        con.executemany(f'INSERT INTO "{name}" VALUES ({",".join("?" * width)})', rows)
        total += len(rows)
    con.commit()
    con.execute("VACUUM")
    con.close()
    return total, {n: len(data[n]) for n in names}


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    outdir = argv[1]
    only = set(argv[2:])
    os.makedirs(outdir, exist_ok=True)
    t0 = time.time()
    for db_id, seed, ddl, fn, _ in DATABASES:
        if only and db_id not in only:
            continue
        total, counts = build(outdir, db_id, seed, ddl, fn)
        print(f"{db_id}: {total} rows ({', '.join(f'{k} {v}' for k, v in counts.items())})")
        if total > 30000:
            raise SystemExit(f"{db_id} has {total} rows, over the 30,000 budget")
    print(f"done in {time.time() - t0:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

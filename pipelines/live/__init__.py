"""Live checks (docs/live-checks.md item 2, "live at verification time"; docs/rules.md rule rows).

One module per provider kind, none of them importing Dagster:

* ``dns_client``  MX, SPF (TXT), DMARC (``_dmarc`` TXT), A/AAAA and NS, with dnspython;
* ``blocklists``  DNS blocklists for domains (``127.255.255.x`` rate-limit answers filtered);
* ``rdap``        registration date through the IANA bootstrap (the .au registry for .au);
* ``ct``          certificate transparency (count, earliest, subdomain certificates);
* ``web``         web presence: candidate domains, HTTPS, redirects, parked pages;
* ``providers``   scam rating, review platforms, phone and street view behind one interface.

``findings`` holds what the clients found for an entity; ``tiles`` holds the outcome rules,
one case per docs/rules.md row, which read the findings; ``checker`` runs the clients for a
domain or an entity, fills the findings and turns them into tiles. Shared machinery: ``guard``
(public addresses only), ``http`` (urllib3 with a deadline on every read, guarded
connections), ``shape`` (a provider's JSON checked before it is read), ``cache`` (per-key
results with a TTL, on disk), ``throttle`` (per-provider concurrency, rate, retries with
back-off, rate limits per endpoint), ``config``.
"""

"""The calls certbot's dns-cloudflare plugin makes, through Debian's python3-cloudflare (2.11).

Reads CLOUDFLARE_API_URL, ZONE and either STRATUS_TOKEN (an API token) or STRATUS_EMAIL and STRATUS_KEY
from the environment; prints one JSON line with what it saw, for the calling test to check.
"""
import json
import os
import sys

import CloudFlare

if "STRATUS_TOKEN" in os.environ:
    cf = CloudFlare.CloudFlare(token=os.environ["STRATUS_TOKEN"])
else:
    cf = CloudFlare.CloudFlare(email=os.environ["STRATUS_EMAIL"], key=os.environ["STRATUS_KEY"])
zone = os.environ["ZONE"]
record_name = "_acme-challenge.www." + zone
token = "certbot-token-Abc_123"
out = {}

# certbot walks up from the record's domain: www.<zone> first (must be []), then <zone>.
out["sub_lookup"] = cf.zones.get(params={"name": "www." + zone, "per_page": 1})
zones = cf.zones.get(params={"name": zone, "per_page": 1})
out["zone_names"] = [z["name"] for z in zones]
zone_id = zones[0]["id"]

created = cf.zones.dns_records.post(zone_id, data={"type": "TXT", "name": record_name, "content": token, "ttl": 120})
out["created"] = {k: created[k] for k in ("name", "type", "content", "ttl")}

found = cf.zones.dns_records.get(zone_id, params={"type": "TXT", "name": record_name, "content": token, "per_page": 1})
out["found_ids"] = [r["id"] for r in found]
out["created_id"] = created["id"]

deleted = cf.zones.dns_records.delete(zone_id, found[0]["id"])
out["deleted"] = deleted

out["after"] = cf.zones.dns_records.get(zone_id, params={"type": "TXT", "name": record_name})

try:
    cf.zones.dns_records.get(zone_id, "f" * 32)
    out["missing"] = None
except CloudFlare.exceptions.CloudFlareAPIError as e:
    out["missing"] = int(e)

json.dump(out, sys.stdout)

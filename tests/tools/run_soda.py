"""Run SodaCL checks with Soda Core on a CSV file loaded into DuckDB; print the results as JSON.

Runs in the Soda venv (.tools/soda, see tests/install.sh), not in the test
interpreter: ``python run_soda.py CHECKS.yml TABLE CSV COLUMNS_JSON INTEGER_COLUMNS_JSON``.
The CSV is read as text, the columns named COLUMNS_JSON (its header is skipped),
INTEGER_COLUMNS_JSON cast to BIGINT.
"""

import json
import sys

import duckdb
from soda.scan import Scan

checks, table, csv, columns, integers = sys.argv[1:6]
names, ints = json.loads(columns), set(json.loads(integers))
con = duckdb.connect()
relation = con.read_csv(csv, header=True, all_varchar=True, names=names)
select = ", ".join(f'CAST("{c}" AS BIGINT) AS "{c}"' if c in ints else f'"{c}"' for c in names)
con.execute(f'CREATE TABLE "{table}" AS SELECT {select} FROM relation')
scan = Scan()
scan.set_data_source_name("duckdb")
scan.add_duckdb_connection(con)
scan.add_sodacl_yaml_file(checks)
exit_code = scan.execute()
results = scan.get_scan_results()
json.dump(
    {
        "exit_code": exit_code,
        "errors": [log["message"] for log in results["logs"] if log["level"] == "ERROR"],
        "checks": [
            {
                "name": c["name"],
                "definition": c["definition"],
                "outcome": c["outcome"],
                "value": c.get("diagnostics", {}).get("value"),
            }
            for c in results["checks"]
        ],
    },
    sys.stdout,
)

"""The benchmark scripts' tables: a Markdown table printed last, so the device tool's reply shows it."""


def print_table(header, rows):
    print("\n| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(str(c) for c in r) + " |")

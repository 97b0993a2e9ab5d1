#!/bin/bash
echo "vars,clauses,seed,events,threads,satisfiable,decider,exit,seconds"
for n in 4 8 12 16 20 30; do
  for s in 0 1; do
    tsoser gen --family sat --random --vars $n --seed $s --write-cnf f-$n-$s.cnf -o t-$n-$s.yaml
    ev=$(grep -c '^  - ' t-$n-$s.yaml); th=$(grep '^  - ' t-$n-$s.yaml | awk '{print $2}' | tr -d '"' | sort -u | wc -l)
    m=$(head -1 f-$n-$s.cnf | awk '{print $4}')
    satv=$(z3 -dimacs f-$n-$s.cnf 2>/dev/null | head -1)
    for d in fpt sat auto; do
      st=$(date +%s.%N); tsoser check t-$n-$s.yaml --algo $d --timeout 10 >/dev/null 2>&1; ec=$?; en=$(date +%s.%N)
      echo "$n,$m,$s,$ev,$th,$satv,$d,$ec,$(echo "$en - $st" | bc)"
    done
  done
done

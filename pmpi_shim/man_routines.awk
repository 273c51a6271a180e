# man_routines.awk - piox(7) from piox.7.in, with its routine lists read from the
# tables, so that the manual cannot drift from what libpiox does:
#
#   awk -v version=V -f man_routines.awk routines.def pass_through.def piox.7.in
#
# In the template, the line @WRAPPED_ROUTINES@ becomes one tagged paragraph per part
# of piox (routines.def's first column) naming its routines, @PASS_THROUGH_ROUTINES@
# one per routine of pass_through.def with its reason, and @VERSION@,
# @WRAPPED_COUNT@, @COUNTED_COUNT@ and @PASS_THROUGH_COUNT@ are replaced in any line.

FNR == 1 { file++ }

# routines.def: PIOX_ROUTINE(part, Name, ...) or PIOX_COUNTED(...), which has a _c form.
file == 1 && /^PIOX_(ROUTINE|COUNTED)\(/ {
    split($0, field, /[(,]/)
    part = trim(field[2])
    separator = ",\n"
    if (!(part in routines)) {
        parts[++part_count] = part
        separator = ""
    }
    name = "\\fB\\%MPI_" trim(field[3]) "\\fR"
    if (field[1] == "PIOX_COUNTED") {
        name = name "[\\fB_c\\fR]"
        counted_count++
    }
    routines[part] = routines[part] separator name
    wrapped_count++
    next
}

# pass_through.def: PIOX_PASS_THROUGH(Name, "why" "more why"), over one or more lines.
file == 2 && (entry != "" || /^PIOX_PASS_THROUGH\(/) {
    entry = entry " " $0
    unquoted = entry
    gsub(/"([^"\\]|\\.)*"/, "", unquoted)
    if (gsub(/\(/, "(", unquoted) > gsub(/\)/, ")", unquoted))
        next
    name = entry
    sub(/^ *PIOX_PASS_THROUGH\( */, "", name)
    sub(/ *,.*/, "", name)
    why = ""
    while (match(entry, /"([^"\\]|\\.)*"/)) {
        why = why substr(entry, RSTART + 1, RLENGTH - 2)
        entry = substr(entry, RSTART + RLENGTH)
    }
    passing[++pass_count] = ".TP\n.B \\%MPI_" name "\n\\&" roff_text(why) "."
    entry = ""
    next
}

file == 3 && $0 == "@WRAPPED_ROUTINES@" {
    for (i = 1; i <= part_count; i++)
        print ".TP\n.B " parts[i] "\n" routines[parts[i]] "."
    next
}

file == 3 && $0 == "@PASS_THROUGH_ROUTINES@" {
    for (i = 1; i <= pass_count; i++)
        print passing[i]
    next
}

file == 3 {
    gsub(/@VERSION@/, version)
    gsub(/@WRAPPED_COUNT@/, wrapped_count)
    gsub(/@COUNTED_COUNT@/, counted_count)
    gsub(/@PASS_THROUGH_COUNT@/, pass_count)
    print
}

END {
    if (wrapped_count == 0 || pass_count == 0) {
        print "man_routines.awk: no routines read (arguments: routines.def pass_through.def piox.7.in)" > "/dev/stderr"
        exit 1
    }
}

function trim(text) {
    gsub(/^[ \t]+|[ \t]+$/, "", text)
    return text
}

# A C string as roff text: escapes resolved, backslashes kept visible.
function roff_text(text) {
    gsub(/\\"/, "\"", text)
    gsub(/\\/, "\\e", text)
    return text
}

# wrapped_routines.awk - the MPI routines libpiox wraps, read from routines.def and
# printed on one line: MPI_Name for every PIOX_ROUTINE and PIOX_COUNTED entry, followed
# by MPI_Name_c for a PIOX_COUNTED one where the MPI library has the large-count forms
# (-v large=yes). configure runs it once; piox-config and piox.pc wrap these routines.
BEGIN { FS = "[(,]" }
/^PIOX_(ROUTINE|COUNTED)\(/ {
    name = $3
    gsub(/ /, "", name)
    routines = routines separator "MPI_" name
    separator = " "
    if ($1 == "PIOX_COUNTED" && large == "yes")
        routines = routines " MPI_" name "_c"
}
END { print routines }

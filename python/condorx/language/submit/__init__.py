"""Submit files to job ads, as condor_submit builds them: `parse` reads the file,
`build` and `series` make each job's ad, `commands` and its parts (`universes`,
`requests`, `transfer`, `requirements`, ...) give each submit command its meaning."""

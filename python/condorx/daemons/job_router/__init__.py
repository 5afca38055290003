"""The job router: routes idle jobs to other pools by its route table (`table`,
`transform`), and backs off routes that fail (`failures`); `service` runs the passes."""

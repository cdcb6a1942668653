"""What people see and type: the command line, the dealer console, the terminal table, the report and charts, and the web pages in Chromium."""

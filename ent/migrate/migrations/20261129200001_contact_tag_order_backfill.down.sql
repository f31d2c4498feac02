-- The entries go with the table (the previous migration's down).
SELECT 1;

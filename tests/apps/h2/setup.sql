-- The tables the H2 app test queries (run once through H2's own RunScript client).
CREATE TABLE IF NOT EXISTS orders AS
  SELECT X AS id, MOD(X, 97) AS customer, MOD(X * 31, 1000) / 10.0 AS amount, CAST(X AS VARCHAR) || '-order' AS label
  FROM SYSTEM_RANGE(1, 200000);
CREATE TABLE IF NOT EXISTS customers AS SELECT X AS id, 'customer-' || X AS name FROM SYSTEM_RANGE(0, 96);

# A CSV file read as IDX.
import data
x = data.load_idx("not_numbers.csv")
print(x)

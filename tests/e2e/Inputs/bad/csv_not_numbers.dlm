# A CSV data row with a word in it.
import data
x = data.load_csv("not_numbers.csv")
print(x)
